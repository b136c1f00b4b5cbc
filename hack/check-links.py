#!/usr/bin/env python3
"""Checks every relative link of the repository's Markdown files: the file it names exists, and so
does the heading its #anchor names (GitHub's anchor rule). Web links are not followed: the tests
send no traffic off the machine. Prints each broken link as file:line and exits 1 if there is one.

Usage: hack/check-links.py [ROOT]   (default: the repository holding this script)
"""
import os
import re
import subprocess
import sys

LINK = re.compile(r'(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)|!\[[^\]]*\]\(([^)\s]+)\)')
FENCE = re.compile(r'^\s*(```|~~~)')


def markdown_files(root):
    out = subprocess.run(["git", "-C", root, "ls-files", "-co", "--exclude-standard", "*.md"],
                         check=True, capture_output=True, text=True).stdout.split()
    return [f for f in out if os.path.exists(os.path.join(root, f))]


def slug(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r'`|\*|_(?=\w)|(?<=\w)_', '', heading.strip().lower())
    text = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', text)
    text = re.sub(r'[^\w\- ]', '', text)
    return text.replace(' ', '-')


def anchors(path, cache={}):
    if path not in cache:
        found, counts, fenced = set(), {}, False
        with open(path, encoding="utf-8") as f:
            for line in f:
                if FENCE.match(line):
                    fenced = not fenced
                    continue
                m = None if fenced else re.match(r'^#{1,6}\s+(.*?)\s*#*\s*$', line)
                if m:
                    s = slug(m.group(1))
                    n = counts.get(s, 0)
                    counts[s] = n + 1
                    found.add(s if n == 0 else f"{s}-{n}")
                found.update(re.findall(r'<a\s+(?:name|id)="([^"]+)"', line))
        cache[path] = found
    return cache[path]


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), ".."))
    broken, checked = [], 0
    for rel in markdown_files(root):
        path = os.path.join(root, rel)
        fenced = False
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if FENCE.match(line):
                    fenced = not fenced
                    continue
                if fenced:
                    continue
                for m in LINK.finditer(line):
                    target = m.group(1) or m.group(2)
                    if re.match(r'^[a-z][a-z0-9+.-]*:', target):  # http:, mailto: ...
                        continue
                    checked += 1
                    file_part, _, anchor = target.partition("#")
                    dest = path if not file_part else os.path.normpath(
                        os.path.join(os.path.dirname(path), file_part))
                    if not os.path.exists(dest):
                        broken.append(f"{rel}:{number}: {target}: no such file")
                    elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                        broken.append(f"{rel}:{number}: {target}: no heading with anchor #{anchor}")
    for b in broken:
        print(b)
    print(f"{checked} relative links checked, {len(broken)} broken", file=sys.stderr)
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
