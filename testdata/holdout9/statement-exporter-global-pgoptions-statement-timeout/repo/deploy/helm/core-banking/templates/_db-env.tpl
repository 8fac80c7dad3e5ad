{{- define "core.dbEnv" -}}
- name: PGHOST
  value: {{ .Values.global.database.host | quote }}
- name: PGPORT
  value: {{ .Values.global.database.port | quote }}
- name: PGDATABASE
  value: {{ .Values.global.database.name | quote }}
- name: PGSSLMODE
  value: {{ .Values.global.database.sslmode | quote }}
- name: PGOPTIONS
  value: {{ .Values.global.database.options | quote }}
- name: PGUSER
  valueFrom:
    secretKeyRef: {name: {{ .name }}-db, key: username}
- name: PGPASSWORD
  valueFrom:
    secretKeyRef: {name: {{ .name }}-db, key: password}
{{- end -}}
