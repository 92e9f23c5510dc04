{{/* Arm B's collector: names, labels, the URL the operator reads, and the checks of its values. */}}

{{- define "proctor.collectorName" -}}
{{- printf "%s-collector" (include "proctor.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* What selects the collector's pods: a name of its own, so the operator's selectors (and its
metrics Service) never match them. */}}
{{- define "proctor.collectorSelectorLabels" -}}
app.kubernetes.io/name: {{ printf "%s-collector" (include "proctor.name" .) | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "proctor.collectorLabels" -}}
helm.sh/chart: {{ include "proctor.chart" . }}
{{ include "proctor.collectorSelectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: proctor
app.kubernetes.io/component: collector
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "proctor.collectorServiceAccountName" -}}
{{- if .Values.collector.serviceAccount.create }}
{{- default (include "proctor.collectorName" .) .Values.collector.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.collector.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "proctor.collectorImage" -}}
{{- printf "%s:%s" (.Values.collector.image.repository | default .Values.image.repository) (.Values.collector.image.tag | default (.Values.image.tag | default .Chart.AppVersion)) }}
{{- end }}

{{/* The URL the operator reads AgentMonitor summaries from: collector.url, else the chart's
collector Service when it is enabled, else nothing. */}}
{{- define "proctor.collectorURL" -}}
{{- if .Values.collector.url }}
{{- .Values.collector.url }}
{{- else if .Values.collector.enabled }}
{{- printf "%s://%s.%s.svc:%d" (include "proctor.collectorScheme" .) (include "proctor.collectorName" .) .Release.Namespace (int .Values.collector.port) }}
{{- end }}
{{- end }}

{{/* Whether the chart's collector serves TLS, and the Secret holding its tls.crt and tls.key:
collector.tls.existingSecret (cert-manager's Certificate makes one), else the one the chart makes
from collector.tls.cert and .key. */}}
{{- define "proctor.collectorTLSSecret" -}}
{{- $t := .Values.collector.tls }}
{{- if $t.existingSecret }}{{ $t.existingSecret }}
{{- else if $t.cert }}{{ printf "%s-tls" (include "proctor.collectorName" .) }}
{{- end }}
{{- end }}

{{- define "proctor.collectorScheme" -}}
{{- if include "proctor.collectorTLSSecret" . }}https{{ else }}http{{ end }}
{{- end }}

{{/* Where the operator finds the CA that verifies the collector: collector.tls.caBundle (a
ConfigMap the chart makes), else the ca.crt of the chart's TLS Secret (cert-manager writes it),
mounted by the kubelet (the operator reads no Secret). Empty: the system's CAs. */}}
{{- define "proctor.collectorCAVolume" -}}
{{- $t := .Values.collector.tls }}
{{- if $t.caBundle }}
- name: collector-ca
  configMap:
    name: {{ printf "%s-ca" (include "proctor.collectorName" .) }}
{{- else if and .Values.collector.enabled (include "proctor.collectorTLSSecret" .) }}
- name: collector-ca
  secret:
    secretName: {{ include "proctor.collectorTLSSecret" . }}
    items:
      - {key: {{ $t.caKey }}, path: ca.crt}
{{- end }}
{{- end }}

{{- define "proctor.collectorOperatorVolumes" -}}
{{- include "proctor.collectorCAVolume" . }}
{{- end }}

{{- define "proctor.collectorOperatorMounts" -}}
{{- if include "proctor.collectorCAVolume" . }}
- name: collector-ca
  mountPath: /etc/proctor/collector-ca
  readOnly: true
{{- end }}
{{- end }}

{{/* The operator container's environment for arm B (included by templates/deployment.yaml). It
calls the collector with a token of its own ServiceAccount for the collector's audience
(TokenRequest), never its API-server token. */}}
{{- define "proctor.collectorOperatorEnv" -}}
{{- with (include "proctor.collectorURL" .) }}
- name: PROCTOR_COLLECTOR_URL
  value: {{ . | quote }}
{{- end }}
{{- if include "proctor.collectorCAVolume" . }}
- name: PROCTOR_COLLECTOR_CA
  value: /etc/proctor/collector-ca/ca.crt
{{- end }}
{{- end }}

{{- define "proctor.collectorSQLite" -}}
{{- if eq .Values.collector.database.type "sqlite" }}true{{ end }}
{{- end }}

{{/* Checks that stop a bad install early, with the fix in the message (values.schema.json says
the same where a schema can). */}}
{{- define "proctor.collectorValidate" -}}
{{- $c := .Values.collector }}
{{- if not (has $c.database.type (list "sqlite" "postgresql")) }}
{{- fail "collector.database.type: sqlite or postgresql" }}
{{- end }}
{{- if and (eq $c.database.type "sqlite") (gt (int $c.replicas) 1) }}
{{- fail "collector.replicas: SQLite has one writer (one file on a ReadWriteOnce volume): run 1 replica, or use collector.database.type postgresql for more" }}
{{- end }}
{{- if and $c.tls.cert (not $c.tls.key) }}
{{- fail "collector.tls.key: required with collector.tls.cert (or give collector.tls.existingSecret)" }}
{{- end }}
{{- if and (eq $c.database.type "postgresql") (not $c.database.urlSecret.name) }}
{{- fail "collector.database.urlSecret.name: required with postgresql (a Secret whose key holds the postgresql:// URL)" }}
{{- end }}
{{- end }}
