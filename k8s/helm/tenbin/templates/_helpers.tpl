{{- define "tenbin.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}{{ .Release.Name | trunc 50 | trimSuffix "-" }}{{- else -}}{{ printf "%s-%s" .Release.Name .Chart.Name | trunc 50 | trimSuffix "-" }}{{- end -}}
{{- end -}}

{{- define "tenbin.labels" -}}
app.kubernetes.io/name: tenbin
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* selector labels of one service: (dict "root" $ "svc" "encoder") */}}
{{- define "tenbin.selector" -}}
app.kubernetes.io/name: tenbin
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .svc }}
{{- end -}}

{{- define "tenbin.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}
{{- define "tenbin.gpuImage" -}}
{{ .Values.image.gpuRepository }}:{{ .Values.image.gpuTag | default (printf "%s-gpu" .Chart.AppVersion) }}
{{- end -}}

{{- define "tenbin.tokenSecret" -}}
{{ .Values.auth.token.existingSecret | default (printf "%s-auth-token" (include "tenbin.fullname" .)) }}
{{- end -}}
{{- define "tenbin.hubSecret" -}}
{{ .Values.auth.hubToken.existingSecret | default (printf "%s-hub-token" (include "tenbin.fullname" .)) }}
{{- end -}}
{{- define "tenbin.hasHubToken" -}}
{{- if or .Values.auth.hubToken.existingSecret .Values.auth.hubToken.value -}}true{{- end -}}
{{- end -}}
{{- define "tenbin.tlsSecret" -}}
{{ .Values.tls.existingSecret | default (printf "%s-tls" (include "tenbin.fullname" .)) }}
{{- end -}}

{{/* gRPC endpoint of a service from inside the cluster */}}
{{- define "tenbin.endpoint" -}}
{{ include "tenbin.fullname" .root }}-{{ .svc }}:{{ (index .root.Values .svc).port }}
{{- end -}}

{{/*
gRPC target of a stateless service (encoder, rerank) for clients inside the release: its headless
Service through dns:/// (round_robin over the ready pods) when balancing is on, else its ClusterIP
Service. Namespace-relative, so the kustomize overlays can change the namespace.
*/}}
{{- define "tenbin.balancedEndpoint" -}}
{{- if .root.Values.balancing.enabled -}}
dns:///{{ include "tenbin.fullname" .root }}-{{ .svc }}-headless:{{ (index .root.Values .svc).port }}
{{- else -}}
{{ include "tenbin.endpoint" . }}
{{- end -}}
{{- end -}}

{{/*
The index StatefulSet's pods by their stable names, comma-separated (--index-pods): each collection
lives on one of them (rendezvous hashing of its name over these names, docs/scaling.md). The list
follows index.replicas, so changing it rolls the eval pod with the new list.
*/}}
{{- define "tenbin.indexPods" -}}
{{- $name := include "tenbin.fullname" . -}}
{{- $pods := list -}}
{{- range $i := until (int .Values.index.replicas) -}}
{{- $pods = append $pods (printf "%s-index-%d.%s-index-headless:%v" $name $i $name $.Values.index.port) -}}
{{- end -}}
{{ join "," $pods }}
{{- end -}}

{{/* Environment shared by every server: ports, shutdown grace, TLS and token */}}
{{- define "tenbin.serverEnv" -}}
{{- $v := .root.Values -}}
{{- /* every interface: Service endpoints and the kubelet's gRPC probes reach the pod IP */}}
- name: TENBIN_HOST
  value: "0.0.0.0"
- name: TENBIN_PORT
  value: {{ (index $v .svc).port | quote }}
- name: TENBIN_METRICS_PORT
  value: {{ $v.metricsPort | quote }}
- name: TENBIN_SHUTDOWN_GRACE_SECONDS
  value: {{ $v.shutdownGraceSeconds | quote }}
- name: TENBIN_CACHE_DIR
  value: /var/cache/tenbin
{{- if and $v.balancing.enabled (has .svc (list "encoder" "rerank")) }}
- name: TENBIN_MAX_CONNECTION_AGE_SECONDS
  value: {{ $v.balancing.maxConnectionAgeSeconds | quote }}
- name: TENBIN_MAX_CONNECTION_AGE_GRACE_SECONDS
  value: {{ $v.balancing.maxConnectionAgeGraceSeconds | quote }}
{{- end }}
{{- if $v.tls.enabled }}
- name: TENBIN_TLS_CERT
  value: /etc/tenbin/tls/tls.crt
- name: TENBIN_TLS_KEY
  value: /etc/tenbin/tls/tls.key
{{- if $v.tls.mutual }}
- name: TENBIN_TLS_CLIENT_CA
  value: /etc/tenbin/tls/ca.crt
{{- end }}
- name: TENBIN_SERVICE_TLS
  value: "true"
- name: TENBIN_SERVICE_TLS_CA
  value: /etc/tenbin/tls/ca.crt
{{- if $v.tls.mutual }}
- name: TENBIN_SERVICE_TLS_CLIENT_CERT
  value: /etc/tenbin/tls/tls.crt
- name: TENBIN_SERVICE_TLS_CLIENT_KEY
  value: /etc/tenbin/tls/tls.key
{{- end }}
{{- else }}
- name: TENBIN_ALLOW_PLAINTEXT
  value: {{ $v.tls.allowPlaintext | quote }}
{{- end }}
{{- if $v.auth.token.enabled }}
- name: TENBIN_AUTH_TOKEN_FILE
  value: /etc/tenbin/auth/token
- name: TENBIN_SERVICE_TOKEN_FILE
  value: /etc/tenbin/auth/token
{{- end }}
{{- if include "tenbin.hasHubToken" .root }}
- name: HF_TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ include "tenbin.hubSecret" .root }}
      key: token
{{- end }}
{{- range $k, $val := (index $v .svc).env }}
- name: {{ $k }}
  value: {{ $val | quote }}
{{- end }}
{{- end -}}

{{/* Probes, ports, lifecycle, security and the shared mounts of a server container */}}
{{- define "tenbin.serverCommon" -}}
{{- $v := .root.Values -}}
{{- $port := (index $v .svc).port -}}
ports:
  - name: grpc
    containerPort: {{ $port }}
    protocol: TCP
  - name: metrics
    containerPort: {{ $v.metricsPort }}
    protocol: TCP
startupProbe:
  grpc:
    port: {{ $port }}
  periodSeconds: 5
  failureThreshold: 60
livenessProbe:
  grpc:
    port: {{ $port }}
  periodSeconds: 10
  timeoutSeconds: 5
  failureThreshold: 3
readinessProbe:
  grpc:
    port: {{ $port }}
  periodSeconds: 5
  timeoutSeconds: 3
  failureThreshold: 2
lifecycle:
  preStop:
    sleep:
      seconds: {{ $v.preStopSleepSeconds }}
securityContext:
  {{- toYaml $v.securityContext | nindent 2 }}
resources:
  {{- toYaml (.resources | default (index $v .svc).resources) | nindent 2 }}
{{- end -}}

{{- define "tenbin.commonMounts" -}}
- name: tmp
  mountPath: /tmp
- name: cache
  mountPath: /var/cache/tenbin
{{- if .Values.tls.enabled }}
- name: tls
  mountPath: /etc/tenbin/tls
  readOnly: true
{{- end }}
{{- if .Values.auth.token.enabled }}
- name: auth
  mountPath: /etc/tenbin/auth
  readOnly: true
{{- end }}
{{- end -}}

{{- define "tenbin.commonVolumes" -}}
- name: tmp
  emptyDir:
    sizeLimit: {{ .Values.tmpSize }}
{{- if .Values.tls.enabled }}
- name: tls
  secret:
    secretName: {{ include "tenbin.tlsSecret" . }}
{{- end }}
{{- if .Values.auth.token.enabled }}
- name: auth
  secret:
    secretName: {{ include "tenbin.tokenSecret" . }}
{{- end }}
{{- end -}}

{{- define "tenbin.podCommon" -}}
{{- $v := .root.Values -}}
terminationGracePeriodSeconds: {{ add $v.shutdownGraceSeconds $v.preStopSleepSeconds 5 }}
automountServiceAccountToken: {{ .automountToken | default false }}
enableServiceLinks: false
securityContext:
  {{- toYaml $v.podSecurityContext | nindent 2 }}
{{- with $v.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- $s := index $v .svc }}
{{- $gpu := and (eq .svc "encoder") $v.encoder.gpu.enabled }}
{{- if not $gpu }}
{{- with $s.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $s.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}
{{- with $s.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}
