{{/* The name of every object. */}}
{{- define "warmgate.fullname" -}}
{{- default "warmgate-operator" .Values.fullnameOverride | trunc 50 | trimSuffix "-" -}}
{{- end -}}

{{- define "warmgate.serviceAccountName" -}}
{{- default (include "warmgate.fullname" .) .Values.serviceAccount.name -}}
{{- end -}}

{{- define "warmgate.webhookService" -}}
{{- include "warmgate.fullname" . }}-webhook
{{- end -}}

{{- define "warmgate.webhookSecret" -}}
{{- include "warmgate.fullname" . }}-webhook-tls
{{- end -}}

{{- define "warmgate.selectorLabels" -}}
app.kubernetes.io/name: warmgate-operator
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "warmgate.labels" -}}
{{ include "warmgate.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: operator
app.kubernetes.io/part-of: warmgate
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "warmgate.image" -}}
{{- if .Values.image.digest -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ default .Chart.AppVersion .Values.image.tag }}
{{- end -}}
{{- end -}}

{{/* Fails rendering on settings that cannot work together. */}}
{{- define "warmgate.validate" -}}
{{- if and (gt (int .Values.replicas) 1) (not .Values.leaderElection.enabled) -}}
{{- fail "replicas > 1 needs leaderElection.enabled=true, or every replica would reconcile" -}}
{{- end -}}
{{- if not (has .Values.webhook.certificate.mode (list "SelfSigned" "CertManager")) -}}
{{- fail (printf "webhook.certificate.mode=%q must be SelfSigned or CertManager" .Values.webhook.certificate.mode) -}}
{{- end -}}
{{- if not (has .Values.webhook.failurePolicy (list "Ignore" "Fail")) -}}
{{- fail (printf "webhook.failurePolicy=%q must be Ignore or Fail" .Values.webhook.failurePolicy) -}}
{{- end -}}
{{- end -}}

{{/* The stream gateway's objects: <fullnameOverride>-stream-gateway, or warmgate-stream-gateway. */}}
{{- define "warmgate.gateway.fullname" -}}
{{- printf "%s-stream-gateway" (default "warmgate" .Values.fullnameOverride) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "warmgate.gateway.serviceAccountName" -}}
{{- default (include "warmgate.gateway.fullname" .) .Values.streamGateway.serviceAccount.name -}}
{{- end -}}

{{- define "warmgate.gateway.selectorLabels" -}}
app.kubernetes.io/name: warmgate-stream-gateway
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "warmgate.gateway.labels" -}}
{{ include "warmgate.gateway.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: stream-gateway
app.kubernetes.io/part-of: warmgate
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "warmgate.gateway.image" -}}
{{- with .Values.streamGateway.image -}}
{{- if .digest -}}
{{ .repository }}@{{ .digest }}
{{- else -}}
{{ .repository }}:{{ default $.Chart.AppVersion .tag }}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
Fails rendering on stream gateway settings that cannot work, with the rules and messages of the
CachePolicy CRD's spec.valkey where the values mirror it.
*/}}
{{- define "warmgate.gateway.validate" -}}
{{- $gw := .Values.streamGateway -}}
{{- $v := $gw.valkey -}}
{{- if not $v.addresses -}}
{{- fail "streamGateway.enabled=true needs streamGateway.valkey.addresses: the Valkey server's host:port (e.g. --set 'streamGateway.valkey.addresses={valkey:6379}'), or a cluster's seed nodes with streamGateway.valkey.mode=Cluster" -}}
{{- end -}}
{{- if not (kindIs "slice" $v.addresses) -}}
{{- fail (printf "streamGateway.valkey.addresses=%v must be a list of host:port entries, e.g. [valkey:6379] in a values file or --set 'streamGateway.valkey.addresses={valkey:6379}'" $v.addresses) -}}
{{- end -}}
{{- if not (has $v.mode (list "Standalone" "Cluster")) -}}
{{- fail (printf "streamGateway.valkey.mode=%q must be Standalone or Cluster" $v.mode) -}}
{{- end -}}
{{- range $v.addresses -}}
{{- if not (regexMatch "^[A-Za-z0-9]([-A-Za-z0-9.]*[A-Za-z0-9])?:[0-9]{1,5}$" (toString .)) -}}
{{- fail (printf "streamGateway.valkey.addresses entry %q is not host:port, e.g. valkey:6379" (toString .)) -}}
{{- end -}}
{{- end -}}
{{- if ne (len $v.addresses) (len (uniq $v.addresses)) -}}
{{- fail (printf "streamGateway.valkey.addresses=%v lists an address more than once; list each host:port once" $v.addresses) -}}
{{- end -}}
{{- if and (eq $v.mode "Standalone") (gt (len $v.addresses) 1) -}}
{{- fail (printf "streamGateway.valkey.addresses=%v lists several addresses but streamGateway.valkey.mode is Standalone: set streamGateway.valkey.mode=Cluster if they are seed nodes of a Valkey cluster, or list the one server" $v.addresses) -}}
{{- end -}}
{{- if gt (len $v.addresses) 16 -}}
{{- fail (printf "streamGateway.valkey.addresses lists %d seed nodes; list at most 16 (a few of the cluster's nodes are enough to find the others)" (len $v.addresses)) -}}
{{- end -}}
{{- if and $v.passwordSecretKeyRef (not $v.passwordSecretKeyRef.name) -}}
{{- fail "streamGateway.valkey.passwordSecretKeyRef needs a name: the Secret holding the password, e.g. {name: valkey, key: password}" -}}
{{- end -}}
{{- if and $v.username (not $v.passwordSecretKeyRef) -}}
{{- fail "streamGateway.valkey.username requires streamGateway.valkey.passwordSecretKeyRef; add the Secret that holds the user's password" -}}
{{- end -}}
{{- if not (kindIs "bool" $v.tls) -}}
{{- fail (printf "streamGateway.valkey.tls=%v must be true or false" $v.tls) -}}
{{- end -}}
{{- if and $v.tlsCaSecretRef (not $v.tlsCaSecretRef.name) -}}
{{- fail "streamGateway.valkey.tlsCaSecretRef needs a name: the Secret holding the CA certificates, e.g. {name: valkey-ca, key: ca.crt}" -}}
{{- end -}}
{{- if and $v.tlsCaSecretRef (not $v.tls) -}}
{{- fail "streamGateway.valkey.tlsCaSecretRef needs streamGateway.valkey.tls=true, as the CA only checks TLS servers; set streamGateway.valkey.tls=true or remove tlsCaSecretRef" -}}
{{- end -}}
{{- if not (has $v.tlsVerify (list "Full" "CA")) -}}
{{- fail (printf "streamGateway.valkey.tlsVerify=%q must be Full or CA" $v.tlsVerify) -}}
{{- end -}}
{{- if and (eq $v.tlsVerify "CA") (not $v.tls) -}}
{{- fail "streamGateway.valkey.tlsVerify=CA applies to TLS connections; set streamGateway.valkey.tls=true or tlsVerify Full" -}}
{{- end -}}
{{- if not $gw.upstream.url -}}
{{- fail "streamGateway.enabled=true needs streamGateway.upstream.url: the upstream's SSE endpoint, e.g. http://llm:8000/v1/templates/{template}/stream" -}}
{{- end -}}
{{- if not (regexMatch "^https?://[^/?#]+" (toString $gw.upstream.url)) -}}
{{- fail (printf "streamGateway.upstream.url=%q must be the upstream's absolute http(s) SSE endpoint, e.g. http://llm:8000/v1/templates/{template}/stream" (toString $gw.upstream.url)) -}}
{{- end -}}
{{- range $gw.upstream.headers -}}
{{- if not (regexMatch "^[A-Za-z0-9][-A-Za-z0-9]*$" (toString .name)) -}}
{{- fail (printf "streamGateway.upstream.headers entry name=%q is not a header name of letters, digits and -, e.g. Authorization" (toString .name)) -}}
{{- end -}}
{{- if eq (hasKey . "value") (hasKey . "secretKeyRef") -}}
{{- fail (printf "streamGateway.upstream.headers entry %s needs exactly one of value or secretKeyRef {name, key}" .name) -}}
{{- end -}}
{{- if and (hasKey . "secretKeyRef") (not (and .secretKeyRef .secretKeyRef.name .secretKeyRef.key)) -}}
{{- fail (printf "streamGateway.upstream.headers entry %s: secretKeyRef needs name and key of the Secret holding the value" .name) -}}
{{- end -}}
{{- end -}}
{{- $port := int64 $gw.port -}}
{{- if or (lt $port 1) (gt $port 65535) -}}
{{- fail (printf "streamGateway.port=%v must be a port from 1 to 65535" $gw.port) -}}
{{- end -}}
{{- if not (has $gw.auth.mode (list "Token" "None")) -}}
{{- fail (printf "streamGateway.auth.mode=%q must be Token (clients send bearer tokens) or None (something in front authenticates them)" (toString $gw.auth.mode)) -}}
{{- end -}}
{{- if and (eq $gw.auth.mode "Token") (not (and $gw.auth.streamTokensSecretRef $gw.auth.streamTokensSecretRef.name)) -}}
{{- fail "streamGateway.auth.mode=Token needs streamGateway.auth.streamTokensSecretRef: the Secret holding the clients' tokens one a line, e.g. kubectl create secret generic gateway-tokens --from-literal=tokens=$(openssl rand -hex 32) and --set streamGateway.auth.streamTokensSecretRef.name=gateway-tokens" -}}
{{- end -}}
{{- if and (eq $gw.auth.mode "None") (or $gw.auth.streamTokensSecretRef $gw.auth.burstTokensSecretRef) -}}
{{- fail "streamGateway.auth.mode=None admits every client, but a tokens Secret is set: remove streamGateway.auth.*TokensSecretRef, or set mode Token" -}}
{{- end -}}
{{- if and $gw.auth.burstTokensSecretRef (not $gw.auth.burstTokensSecretRef.name) -}}
{{- fail "streamGateway.auth.burstTokensSecretRef needs a name: the Secret holding the burst-flag tokens, e.g. {name: gateway-burst-tokens, key: tokens}" -}}
{{- end -}}
{{- end -}}
