{{- define "tenbin.name" -}}
{{ .Values.nameOverride | default .Chart.Name | trunc 40 | trimSuffix "-" }}
{{- end -}}

{{- define "tenbin.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{ .Values.fullnameOverride | trunc 50 | trimSuffix "-" }}
{{- else -}}
{{- $name := include "tenbin.name" . -}}
{{- if contains $name .Release.Name -}}{{ .Release.Name | trunc 50 | trimSuffix "-" }}{{- else -}}{{ printf "%s-%s" .Release.Name $name | trunc 50 | trimSuffix "-" }}{{- end -}}
{{- end -}}
{{- end -}}

{{- define "tenbin.labels" -}}
app.kubernetes.io/name: {{ include "tenbin.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* selector labels of one service: (dict "root" $ "svc" "encoder") */}}
{{- define "tenbin.selector" -}}
app.kubernetes.io/name: {{ include "tenbin.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .svc }}
{{- end -}}

{{/*
Labels and annotations of a component's pod template: the chart's labels, the global podLabels /
podAnnotations and the component's own (which win on the same key); the chart's labels always win,
so the selector keeps matching. (dict "root" $ "svc" "encoder" "labels" (dict ...extra labels))
*/}}
{{- define "tenbin.podMetadata" -}}
{{- $v := .root.Values -}}
{{- $s := index $v .svc | default dict -}}
{{- $ours := merge (fromYaml (include "tenbin.labels" .root)) (dict "app.kubernetes.io/component" .svc) (.labels | default dict) -}}
{{- $labels := merge $ours (deepCopy ($s.podLabels | default dict)) (deepCopy ($v.podLabels | default dict)) -}}
{{- $annotations := merge (deepCopy ($s.podAnnotations | default dict)) (deepCopy ($v.podAnnotations | default dict)) (.annotations | default dict) -}}
labels:
  {{- toYaml $labels | nindent 2 }}
{{- with $annotations }}
annotations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* image reference: repository@digest, or repository:tag (tag: image.tag, else appVersion) */}}
{{- define "tenbin.imageTag" -}}
{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}
{{- define "tenbin.image" -}}
{{- if .Values.image.digest -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ include "tenbin.imageTag" . }}
{{- end -}}
{{- end -}}
{{- define "tenbin.gpuImage" -}}
{{- if .Values.image.gpuDigest -}}
{{ .Values.image.gpuRepository }}@{{ .Values.image.gpuDigest }}
{{- else -}}
{{ .Values.image.gpuRepository }}:{{ .Values.image.gpuTag | default (printf "%s-gpu" (include "tenbin.imageTag" .)) }}
{{- end -}}
{{- end -}}

{{- define "tenbin.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{ .Values.serviceAccount.name | default (include "tenbin.fullname" .) }}
{{- else -}}
{{ .Values.serviceAccount.name | default "default" }}
{{- end -}}
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
{{- define "tenbin.modelsClaim" -}}
{{ .Values.encoder.models.persistence.existingClaim | default (printf "%s-models" (include "tenbin.fullname" .)) }}
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

{{/*
The most pods a component can run: the HPA's maximum, or its replicas (the index: replicas; the
eval service: 1). A PodDisruptionBudget and the spreading defaults only matter above one.
*/}}
{{- define "tenbin.maxPods" -}}
{{- $s := index .root.Values .svc -}}
{{- if eq .svc "eval" -}}1
{{- else if and (hasKey $s "autoscaling") $s.autoscaling.enabled -}}{{ $s.autoscaling.maxReplicas }}
{{- else -}}{{ $s.replicas }}
{{- end -}}
{{- end -}}

{{/* Environment shared by every server: ports, shutdown grace, TLS and token */}}
{{- define "tenbin.serverEnv" -}}
{{- $v := .root.Values -}}
{{- /* every interface: Service endpoints and the kubelet's probes reach the pod IP */ -}}
- name: TENBIN_HOST
  value: "0.0.0.0"
- name: TENBIN_PORT
  value: {{ (index $v .svc).port | quote }}
- name: TENBIN_METRICS_PORT
  value: {{ $v.metricsPort | quote }}
- name: TENBIN_LOG_FORMAT
  value: {{ $v.logFormat | quote }}
- name: TENBIN_SHUTDOWN_GRACE_SECONDS
  value: {{ $v.shutdownGraceSeconds | quote }}
- name: TENBIN_CACHE_DIR
  value: /var/cache/tenbin
- name: TENBIN_HEAP_PERCENT
  value: {{ (index $v .svc).heapPercent | quote }}
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

{{/* The global then the component's extraEnv, appended after a server's own environment */}}
{{- define "tenbin.extraEnv" -}}
{{- $all := concat (.root.Values.extraEnv | default list) ((index .root.Values .svc).extraEnv | default list) -}}
{{- with $all }}{{ toYaml . }}{{ end }}
{{- end -}}

{{/*
Ports, probes, lifecycle, security and resources of a server container.

Probes are plain HTTP on the metrics port, which is always plaintext whatever tls says (the
kubelet's gRPC probe cannot speak TLS): /livez answers 200 while the process runs and is not
shutting down, /readyz 200 once the service reports SERVING (503 while it preloads models or
drains). The startup probe asks /livez, so a long preload keeps the pod unready, never restarts it.
*/}}
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
{{- $s := index $v .svc }}
{{- if and (hasKey $s "http") $s.http.enabled }}
  - name: http
    containerPort: {{ $s.http.port }}
    protocol: TCP
{{- end }}
startupProbe:
  httpGet:
    path: /livez
    port: metrics
    scheme: HTTP
  periodSeconds: 5
  failureThreshold: 60
livenessProbe:
  httpGet:
    path: /livez
    port: metrics
    scheme: HTTP
  periodSeconds: 10
  timeoutSeconds: 5
  failureThreshold: 3
readinessProbe:
  httpGet:
    path: /readyz
    port: metrics
    scheme: HTTP
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
{{- $v := .root.Values -}}
- name: tmp
  mountPath: /tmp
{{- if and (eq .svc "eval") $v.eval.persistence.keepCache }}
{{- /* the eval service's embedding cache (encoded corpus slices) on its volume: a restart keeps it */}}
- name: state
  mountPath: /var/cache/tenbin
  subPath: embedding-cache
{{- else }}
- name: cache
  mountPath: /var/cache/tenbin
{{- end }}
{{- if $v.tls.enabled }}
- name: tls
  mountPath: /etc/tenbin/tls
  readOnly: true
{{- end }}
{{- if $v.auth.token.enabled }}
- name: auth
  mountPath: /etc/tenbin/auth
  readOnly: true
{{- end }}
{{- with concat ($v.extraVolumeMounts | default list) ((index $v .svc).extraVolumeMounts | default list) }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "tenbin.commonVolumes" -}}
{{- $v := .root.Values -}}
- name: tmp
  emptyDir:
    sizeLimit: {{ $v.tmpSize }}
{{- if $v.tls.enabled }}
- name: tls
  secret:
    secretName: {{ include "tenbin.tlsSecret" .root }}
{{- end }}
{{- if $v.auth.token.enabled }}
- name: auth
  secret:
    secretName: {{ include "tenbin.tokenSecret" .root }}
{{- end }}
{{- with concat ($v.extraVolumes | default list) ((index $v .svc).extraVolumes | default list) }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/*
The hub cache volume (/var/cache/tenbin) of the encoder and rerank pods: one per pod, an emptyDir
or a generic ephemeral volume (a claim per pod from a storage class, deleted with the pod).
*/}}
{{- define "tenbin.modelCacheVolume" -}}
{{- $c := .Values.encoder.models.cache -}}
- name: cache
{{- if eq $c.type "ephemeral" }}
  ephemeral:
    volumeClaimTemplate:
      metadata:
        labels:
          {{- include "tenbin.labels" . | nindent 10 }}
      spec:
        accessModes: ["ReadWriteOnce"]
        {{- with $c.storageClass }}
        storageClassName: {{ . }}
        {{- end }}
        resources:
          requests:
            storage: {{ $c.size }}
{{- else }}
  emptyDir:
    sizeLimit: {{ $c.size }}
{{- end }}
{{- end -}}

{{/* Pull secrets of every pod the chart renders */}}
{{- define "tenbin.imagePullSecrets" -}}
{{- with .Values.imagePullSecrets -}}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end -}}
{{- end -}}

{{/*
Scheduling of a component's pods: node selector and tolerations (in GPU mode the encoder's own
merged with encoder.gpu's), priority class, and where replicas go: the component's affinity and
topologySpreadConstraints when given, else (for a component that can run more than one pod) a
preferred anti-affinity per node and a zone spread, as `scheduling` says.
*/}}
{{- define "tenbin.scheduling" -}}
{{- $v := .root.Values -}}
{{- $s := index $v .svc -}}
{{- $gpu := and (eq .svc "encoder") $v.encoder.gpu.enabled -}}
{{- $nodeSelector := deepCopy ($s.nodeSelector | default dict) -}}
{{- $tolerations := $s.tolerations | default list -}}
{{- if $gpu -}}
{{- $nodeSelector = merge $nodeSelector (deepCopy ($v.encoder.gpu.nodeSelector | default dict)) -}}
{{- $tolerations = concat ($v.encoder.gpu.tolerations | default list) $tolerations | uniq -}}
{{- end -}}
{{- $selector := fromYaml (include "tenbin.selector" .) -}}
{{- $many := gt (int (include "tenbin.maxPods" .)) 1 -}}
{{- with $nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with ($s.priorityClassName | default $v.priorityClassName) }}
priorityClassName: {{ . }}
{{- end }}
{{- if $s.affinity }}
affinity:
  {{- toYaml $s.affinity | nindent 2 }}
{{- else if and $many $v.scheduling.spreadAcrossNodes }}
affinity:
  podAntiAffinity:
    preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 100
        podAffinityTerm:
          topologyKey: kubernetes.io/hostname
          labelSelector:
            matchLabels:
              {{- toYaml $selector | nindent 14 }}
{{- end }}
{{- if $s.topologySpreadConstraints }}
topologySpreadConstraints:
  {{- toYaml $s.topologySpreadConstraints | nindent 2 }}
{{- else if and $many $v.scheduling.spreadAcrossZones }}
topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: topology.kubernetes.io/zone
    whenUnsatisfiable: ScheduleAnyway
    labelSelector:
      matchLabels:
        {{- toYaml $selector | nindent 8 }}
    {{- if ne .svc "index" }}
    {{- /* count only the pods of the current ReplicaSet, so a rollout spreads the new pods too */}}
    matchLabelKeys: [pod-template-hash]
    {{- end }}
{{- end }}
{{- end -}}

{{- define "tenbin.podCommon" -}}
{{- $v := .root.Values -}}
terminationGracePeriodSeconds: {{ add $v.shutdownGraceSeconds $v.preStopSleepSeconds 5 }}
serviceAccountName: {{ .serviceAccount | default (include "tenbin.serviceAccountName" .root) }}
automountServiceAccountToken: {{ .automountToken | default $v.serviceAccount.automountServiceAccountToken }}
enableServiceLinks: false
securityContext:
  {{- toYaml $v.podSecurityContext | nindent 2 }}
{{- with include "tenbin.imagePullSecrets" .root }}
{{ . }}
{{- end }}
{{- include "tenbin.scheduling" . }}
{{- end -}}

{{/*
Client flags of a `tenbin job ...` command inside the cluster (run Job, helm test): the release's
TLS files and token from the same Secrets the servers mount.
*/}}
{{- define "tenbin.clientArgs" -}}
- --endpoint
- {{ include "tenbin.endpoint" (dict "root" . "svc" "eval") }}
{{- include "tenbin.clientSecurityArgs" . }}
{{- end -}}

{{/* The release's client TLS files and token as CLI flags (the tests' and run Job's mounts) */}}
{{- define "tenbin.clientSecurityArgs" -}}
{{- if .Values.tls.enabled }}
- --tls-ca
- /etc/tenbin/tls/ca.crt
{{- if .Values.tls.mutual }}
- --tls-client-cert
- /etc/tenbin/tls/tls.crt
- --tls-client-key
- /etc/tenbin/tls/tls.key
{{- end }}
{{- end }}
{{- if .Values.auth.token.enabled }}
- --auth-token-file
- /etc/tenbin/auth/token
{{- end }}
{{- end -}}

{{/* Who may call a service (NetworkPolicy "from"; values.yaml, networkPolicy): pods of the release's
namespace with the service's client label or the all-services label, pods with the service's label in
networkPolicy.clientNamespaces (namespaceSelector and podSelector in one peer: both must match), the
rerank pods (for encoder and index), and networkPolicy.extraClients.<service>. (dict "root" $ "svc" "encoder") */}}
{{- define "tenbin.networkClients" -}}
{{- $np := .root.Values.networkPolicy -}}
- podSelector:
    matchLabels:
      tenbin.dev/{{ .svc }}-client: "true"
- podSelector:
    matchLabels:
      tenbin.dev/client: "true"
{{- if or (eq .svc "encoder") (eq .svc "index") }}
- podSelector:
    matchLabels:
      {{- include "tenbin.selector" (dict "root" .root "svc" "rerank") | nindent 6 }}
{{- end }}
{{- range $np.clientNamespaces }}
- namespaceSelector:
    matchLabels:
      {{- toYaml . | nindent 6 }}
  podSelector:
    matchLabels:
      tenbin.dev/{{ $.svc }}-client: "true"
{{- end }}
{{- with index $np.extraClients .svc }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* The run Job's files (spec.yaml and the task sets), as JSON: name -> text */}}
{{- define "tenbin.runJobFiles" -}}
{{- $j := .Values.runJob -}}
{{- $files := dict "spec.yaml" (kindIs "string" $j.spec | ternary $j.spec (toYaml $j.spec)) -}}
{{- range $name, $content := $j.taskSets -}}
{{- $_ := set $files $name (kindIs "string" $content | ternary $content (toYaml $content)) -}}
{{- end -}}
{{ toJson $files }}
{{- end -}}

{{/* The run Job's (and its ConfigMap's) name: <fullname>-run-<hash of the files and the output folder> */}}
{{- define "tenbin.runJobName" -}}
{{ include "tenbin.fullname" . }}-run-{{ sha256sum (printf "%s\n%s" (include "tenbin.runJobFiles" .) .Values.runJob.out) | trunc 8 }}
{{- end -}}

{{/* The TLS and token flags of a tenbin command run on a workstation through a port-forward to the eval service */}}
{{- define "tenbin.workstationFlags" -}}
{{- if .Values.tls.enabled }} --tls-ca ca.crt --tls-server-name {{ include "tenbin.fullname" . }}-eval{{ if .Values.tls.mutual }} --tls-client-cert tls.crt --tls-client-key tls.key{{ end }}{{ end }}
{{- if .Values.auth.token.enabled }} --auth-token-file token{{ end }}
{{- end -}}

{{/* Labels as key=value, comma-separated, sorted by key (for NOTES) */}}
{{- define "tenbin.labelList" -}}
{{- $pairs := list -}}
{{- range $k, $v := . }}{{ $pairs = append $pairs (printf "%s=%s" $k $v) }}{{ end -}}
{{ join "," $pairs }}
{{- end -}}

{{/* The namespaceSelector matchLabels of who may scrape /metrics, as YAML ("{}": every namespace) */}}
{{- define "tenbin.metricsNamespaceLabels" -}}
{{- $m := .Values.networkPolicy.metrics -}}
{{- if $m.namespaceLabels }}{{ toYaml $m.namespaceLabels }}
{{- else if $m.namespace }}{{ toYaml (dict "kubernetes.io/metadata.name" $m.namespace) }}
{{- else }}{}
{{- end -}}
{{- end -}}
