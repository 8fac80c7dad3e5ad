{{- define "claims-api.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "claims-api.fullname" -}}
{{- include "claims-api.name" . }}
{{- end }}

{{/* Labels recommended by Kubernetes (PLAT-902). */}}
{{- define "claims-api.labels" -}}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version | replace "+" "_" }}
{{ include "claims-api.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: claims-platform
{{- end }}

{{- define "claims-api.selectorLabels" -}}
app.kubernetes.io/name: {{ include "claims-api.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}
