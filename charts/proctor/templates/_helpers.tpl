{{/* The chart's name, or nameOverride. */}}
{{- define "proctor.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The full name of the objects: fullnameOverride, else "<release>-<name>" (just the release
name when it already contains the chart's name). */}}
{{- define "proctor.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "proctor.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels of every object. */}}
{{- define "proctor.labels" -}}
helm.sh/chart: {{ include "proctor.chart" . }}
{{ include "proctor.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: proctor
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* What selects the operator pod. */}}
{{- define "proctor.selectorLabels" -}}
app.kubernetes.io/name: {{ include "proctor.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* commonAnnotations as a metadata block at indentation 2, with its own leading newline
(nothing when empty): use as `{{- include "proctor.annotations" . }}` right after the labels. */}}
{{- define "proctor.annotations" -}}
{{- with .Values.commonAnnotations }}
{{- printf "\n  annotations:\n%s" (toYaml . | indent 4) }}
{{- end }}
{{- end }}

{{- define "proctor.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "proctor.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "proctor.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}

{{- define "proctor.metricsServiceName" -}}
{{- printf "%s-metrics" (include "proctor.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "proctor.webhookServiceName" -}}
{{- printf "%s-webhook" (include "proctor.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- /* The case server's Service: judge pods fetch their shard's cases there (README "Security"). */}}
{{- define "proctor.casesServiceName" -}}
{{- printf "%s-cases" (include "proctor.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "proctor.casesHost" -}}
{{- .Values.cases.host | default (printf "%s.%s.svc" (include "proctor.casesServiceName" .) .Release.Namespace) }}
{{- end }}

{{- define "proctor.webhookConfigurationName" -}}
{{- default (printf "%s-gate" (include "proctor.fullname" .)) .Values.webhook.configurationName }}
{{- end }}

{{/* Namespaces the webhook never sees, in the order the operator writes them
(proctor.gate.webhook.WebhookConfig: kube-system, the extra ones, then its own namespace). */}}
{{- define "proctor.webhookExcluded" -}}
{{- $out := list "kube-system" }}
{{- range .Values.webhook.excludeNamespaces }}{{ $out = append $out . }}{{ end }}
{{- $out = append $out .Release.Namespace }}
{{- toJson (uniq $out) }}
{{- end }}

{{/* The namespaces the webhooks see (proctor.k8s.objects.mutating_webhook_configuration): never the
excluded ones and, with watchNamespaces, only those (DoesNotExist: none, when all are excluded). */}}
{{- define "proctor.webhookNamespaces" -}}
{{- $excluded := include "proctor.webhookExcluded" . | fromJsonArray -}}
matchExpressions:
  - key: kubernetes.io/metadata.name
    operator: NotIn
    values: {{ toJson $excluded }}
{{- if .Values.watchNamespaces }}
{{- $gated := list }}
{{- range (uniq .Values.watchNamespaces) }}{{ if not (has . $excluded) }}{{ $gated = append $gated . }}{{ end }}{{ end }}
{{- if $gated }}
  - key: kubernetes.io/metadata.name
    operator: In
    values: {{ toJson $gated }}
{{- else }}
  - key: kubernetes.io/metadata.name
    operator: DoesNotExist
{{- end }}
{{- end }}
{{- end }}

{{/* Checks that stop a bad install early, with the fix in the message. */}}
{{- define "proctor.validate" -}}
{{- if gt (int .Values.replicas) 1 }}
{{- fail "replicas: the Proctor operator is not highly available; run 1 replica (0 stops it)" }}
{{- end }}
{{- if and .Values.webhook.enabled .Values.webhook.certSecret (not .Values.webhook.caBundle) }}
{{- fail "webhook.caBundle: required with webhook.certSecret (base64 of the Secret's ca.crt)" }}
{{- end }}
{{- if not (has .Values.webhook.failurePolicy (list "Fail" "Ignore")) }}
{{- fail "webhook.failurePolicy: Fail or Ignore" }}
{{- end }}
{{- if and .Values.webhook.enabled .Values.webhook.certSecret .Values.webhook.urlHost }}
{{- fail "webhook.urlHost: with webhook.certSecret the chart's configuration calls the Service; leave urlHost empty (or certSecret, so the operator makes a certificate for the host)" }}
{{- end }}
{{- end }}

{{/* The ClusterRole the judge's RoleBindings name (the rules of proctor.k8s.objects.JUDGE_RULES). */}}
{{- define "proctor.judgeClusterRole" -}}
{{- printf "%s-judge" (include "proctor.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}
