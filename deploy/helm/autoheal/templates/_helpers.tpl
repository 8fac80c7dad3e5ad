{{/* Chart name. */}}
{{- define "autoheal.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Full name: the release name, or <release>-<chart> when the release name does not contain the chart name. */}}
{{- define "autoheal.fullname" -}}
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

{{- define "autoheal.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels common to every object. */}}
{{- define "autoheal.labels" -}}
helm.sh/chart: {{ include "autoheal.chart" . }}
app.kubernetes.io/part-of: autoheal
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- if .Chart.AppVersion }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | trunc 63 | trimSuffix "-" | quote }}
{{- end }}
{{- end }}

{{/* Selector labels of the bot pods. */}}
{{- define "autoheal.selectorLabels" -}}
app.kubernetes.io/name: {{ include "autoheal.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: bot
{{- end }}

{{/* Selector labels of the bundled Redis. */}}
{{- define "autoheal.redis.selectorLabels" -}}
app.kubernetes.io/name: {{ include "autoheal.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: redis
{{- end }}

{{- define "autoheal.redis.fullname" -}}
{{- printf "%s-redis" (include "autoheal.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "autoheal.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "autoheal.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The bot image reference: digest wins over tag. */}}
{{- define "autoheal.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}
{{- end }}

{{/* Default Secret name for secret references. */}}
{{- define "autoheal.secretName" -}}
{{- default (include "autoheal.fullname" .) .Values.secrets.existingSecret }}
{{- end }}

{{/* An env entry from a secret reference: (dict "ctx" $ "env" "NAME" "ref" .Values.secrets.x). */}}
{{- define "autoheal.secretEnv" -}}
- name: {{ .env }}
  valueFrom:
    secretKeyRef:
      name: {{ default (include "autoheal.secretName" .ctx) .ref.name | quote }}
      key: {{ required (printf "the key of the Secret holding %s must be set" .env) .ref.key | quote }}
      {{- if .ref.optional }}
      optional: true
      {{- end }}
{{- end }}

{{/* Whether the pod runs the Kubernetes MCP sidecar. */}}
{{- define "autoheal.mcpSidecar" -}}
{{- if eq .Values.kubernetesMcp.mode "sidecar" }}true{{ end }}
{{- end }}

{{/* Whether the pod mounts the ServiceAccount token. */}}
{{- define "autoheal.automountToken" -}}
{{- if kindIs "bool" .Values.serviceAccount.automountToken }}
{{- .Values.serviceAccount.automountToken }}
{{- else }}
{{- eq .Values.kubernetesMcp.mode "sidecar" }}
{{- end }}
{{- end }}

{{/* Grace period: explicit, or the drain timeout plus the HTTP shutdown and a margin. */}}
{{- define "autoheal.terminationGracePeriod" -}}
{{- if kindIs "invalid" .Values.terminationGracePeriodSeconds }}
{{- add (int .Values.settings.drainTimeoutSeconds) 15 }}
{{- else }}
{{- .Values.terminationGracePeriodSeconds }}
{{- end }}
{{- end }}

{{/* Checks the combination of values the schema cannot express; fails with a message naming the fix. */}}
{{- define "autoheal.validate" -}}
{{- $redis := 0 }}
{{- if .Values.redis.url }}{{ $redis = add1 $redis }}{{ end }}
{{- if .Values.redis.existingSecret }}{{ $redis = add1 $redis }}{{ end }}
{{- if .Values.redis.bundled.enabled }}{{ $redis = add1 $redis }}{{ end }}
{{- if eq $redis 0 }}
{{- fail "redis: set one of redis.url (external Redis), redis.existingSecret (a Secret holding REDIS_URL) or redis.bundled.enabled=true (a small Redis in the release)" }}
{{- else if gt $redis 1 }}
{{- fail "redis: set only one of redis.url, redis.existingSecret and redis.bundled.enabled" }}
{{- end }}
{{- if and (eq .Values.kubernetesMcp.mode "external") (not .Values.kubernetesMcp.url) }}
{{- fail "kubernetesMcp.mode=external needs kubernetesMcp.url (the server's streamable HTTP endpoint, e.g. http://kubernetes-mcp.tools.svc:8080/mcp)" }}
{{- end }}
{{- if and (ne .Values.kubernetesMcp.mode "external") .Values.kubernetesMcp.url }}
{{- fail (printf "kubernetesMcp.url is only used with kubernetesMcp.mode=external (mode is %s)" .Values.kubernetesMcp.mode) }}
{{- end }}
{{- if and .Values.backends.github.app.appId (not .Values.backends.github.app.installationId) }}
{{- fail "backends.github.app.appId needs backends.github.app.installationId" }}
{{- end }}
{{- if and .Values.backends.github.app.installationId (not .Values.backends.github.app.appId) }}
{{- fail "backends.github.app.installationId needs backends.github.app.appId" }}
{{- end }}
{{- if .Values.secrets.create }}
{{- $v := .Values.secrets.values }}
{{- range $entry := list "slackAppToken" "slackBotToken" "encryptionKey" "webhookToken" }}
{{- if not (index $v $entry) }}
{{- fail (printf "secrets.create=true needs secrets.values.%s (and remember: secrets.create is for quick trials only)" $entry) }}
{{- end }}
{{- end }}
{{- if and .Values.redis.bundled.enabled .Values.redis.bundled.auth.enabled (not .Values.redis.bundled.auth.existingSecret) (not $v.redisPassword) }}
{{- fail "secrets.create=true with the bundled Redis needs secrets.values.redisPassword (or redis.bundled.auth.enabled=false)" }}
{{- end }}
{{- if and .Values.backends.github.app.appId (not .Values.secrets.githubAppPrivateKey.name) (not $v.githubAppPrivateKey) }}
{{- fail "secrets.create=true with a GitHub App needs secrets.values.githubAppPrivateKey (the PEM)" }}
{{- end }}
{{- end }}
{{- range $k, $_ := .Values.extraEnv }}
{{- if not (regexMatch "^[A-Za-z_][A-Za-z0-9_]*$" $k) }}
{{- fail (printf "extraEnv: %q is not an environment variable name" $k) }}
{{- end }}
{{- end }}
{{- end }}
