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
