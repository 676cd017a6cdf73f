#!/usr/bin/python3
"""Checks deploy/kubernetes/*.yaml, deploy/kubernetes/cluster/*.yaml and the container's
configuration without a cluster.

kubectl is not a Debian package, so this is the client-side check: every document parses
(python3-yaml), has the fields the API server requires, and the parts of this deployment fit
together: DaemonSet selector and template labels, the Service's selector and target port, the
Intel GPU resource and node selector, gRPC probes on the health_listen port (plaintext, so they
work when the gRPC port has TLS), the memory limit above every job's worker_memory_mb plus the
daemon's (an OOM kill takes the whole pod), a client Job that asks for no GPU, every image the
kustomization's, of the VERSION file's version, a non-root securityContext with the render
group, every volume mount backed by a volume and every ConfigMap volume by a ConfigMap key. The daemon's configuration (ConfigMap and
deploy/container/transcoded.yaml) may only use settings the daemon knows; with
TRANSCODED=path/to/transcoded it is also loaded by the daemon itself. The cluster's own checks
(Secret, node name, PodDisruptionBudget, PostgreSQL StatefulSet) are in check_cluster.py.

  check_manifests.py SOURCE_DIR            # check the files
  check_manifests.py SOURCE_DIR --self-test  # also prove that broken manifests are caught
"""

import copy
import os
import re
import subprocess
import sys
import tempfile

import yaml

import check_cluster
from check_cluster import labels_match

GPU_RESOURCE = "gpu.intel.com/i915"
NFD_GPU_LABELS = ("intel.feature.node.kubernetes.io/gpu",
                  "feature.node.kubernetes.io/pci-0300_8086.present")
IMAGE_USER = 10001
KNOWN_KINDS = {("v1", "Namespace"), ("v1", "ConfigMap"), ("v1", "Service"),
               ("apps/v1", "DaemonSet"), ("batch/v1", "Job"),
               ("kustomize.config.k8s.io/v1beta1", "Kustomization"), ("v1", "Secret"),
               ("v1", "PersistentVolumeClaim"), ("apps/v1", "StatefulSet"),
               ("policy/v1", "PodDisruptionBudget")}
# The manifest directories: one SQLite queue per node; the cluster on one PostgreSQL.
DIRECTORIES = (os.path.join("deploy", "kubernetes"),
               os.path.join("deploy", "kubernetes", "cluster"))
DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
# The daemon's settings (service/daemon/config.cc); `transcoded --help` replaces this when
# TRANSCODED is set, so a renamed setting fails here rather than at a pod's start.
SETTINGS = {"listen", "state_dir", "media_root", "allow_protocol", "max_queue", "slots",
            "max_outputs", "max_pixels", "max_duration", "stall_timeout", "cancel_grace",
            "shutdown_grace", "max_attempts", "retention_hours", "worker_memory_mb", "tls_cert",
            "tls_key", "tls_client_ca", "auth_token_file", "allow_insecure_remote", "log_level",
            "metrics_listen", "proc_root", "sample_interval", "store", "store_password_file",
            "node_id", "worker_landlock", "webhook_secret_file", "webhook_allow", "lease",
            "claim_poll", "health_listen", "cgroup_root", "warm_workers",
            "backend"}
IMAGE = "localhost/transcoded"
# Devices a daemon pod runs jobs on: the software one, and each GPU its pod holds.
SOFTWARE_DEVICES = 1
QUANTITY = re.compile(r"^([0-9]+)(Ki|Mi|Gi|Ti)?$")


class Problems:
    def __init__(self):
        self.items = []

    def add(self, where, text):
        self.items.append(f"{where}: {text}")

    def check(self, ok, where, text):
        if not ok:
            self.add(where, text)
        return ok


def load_documents(directory):
    """{file: [documents]} for every .yaml file in the directory."""
    documents = {}
    for name in sorted(os.listdir(directory)):
        if name.endswith((".yaml", ".yml")):
            with open(os.path.join(directory, name), encoding="utf-8") as f:
                documents[name] = [d for d in yaml.safe_load_all(f) if d is not None]
    return documents


def daemon_settings():
    binary = os.environ.get("TRANSCODED")
    if not binary:
        return SETTINGS
    text = subprocess.run([binary, "--help"], capture_output=True, text=True, timeout=30).stdout
    flags = {m.group(1).replace("-", "_") for m in re.finditer(r"^\s+--([a-z-]+)", text, re.M)}
    return flags - {"config", "worker", "help"} or SETTINGS


def check_daemon_config(problems, where, text, settings, memory_max=None):
    try:
        config = yaml.safe_load(text)
    except yaml.YAMLError as e:
        problems.add(where, f"not YAML: {e}")
        return
    if not problems.check(isinstance(config, dict), where, "not a mapping"):
        return
    for key in config:
        known = key in settings or (key.endswith("s") and key[:-1] in settings)
        problems.check(known, where, f"unknown daemon setting '{key}'")
    binary = os.environ.get("TRANSCODED")
    if binary:
        load_in_daemon(problems, where, text, binary, settings, memory_max)


def load_in_daemon(problems, where, text, binary, settings, memory_max=None):
    """Starts the daemon on the file (addresses and paths overridden to temporary ones): it
    must accept every value and serve, under a cgroup whose memory.max is `memory_max` (the
    DaemonSet's limit) when given."""
    with tempfile.TemporaryDirectory(prefix="tc-deploy-") as tmp:
        path = os.path.join(tmp, "transcoded.yaml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        media = os.path.join(tmp, "media")  # apart from the state dir, as the daemon requires
        os.makedirs(media)
        command = [binary, "--config", path, "--listen", f"unix:{tmp}/sock",
                   "--state-dir", os.path.join(tmp, "state"),
                   "--media-root", media, "--log-level", "warn"]
        if "metrics_listen" in settings:
            command += ["--metrics-listen", "127.0.0.1:0"]
        if "health_listen" in yaml.safe_load(text):
            command += ["--health-listen", "127.0.0.1:0"]
        if memory_max is not None:
            cgroup = os.path.join(tmp, "cgroup")
            os.makedirs(cgroup)
            with open(os.path.join(cgroup, "memory.max"), "w", encoding="utf-8") as f:
                f.write(f"{memory_max}\n")
            command += ["--cgroup-root", cgroup]
        daemon = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True)
        try:
            line = daemon.stdout.readline()  # ctest's TIMEOUT bounds a daemon that hangs
            while line.startswith(("metrics ", "health ")):  # printed before "listening ADDR"
                line = daemon.stdout.readline()
            if not line.startswith("listening "):
                try:
                    daemon.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    pass
                error = daemon.stderr.read().strip() if daemon.poll() is not None else ""
                problems.add(where, f"the daemon did not start on it: {line.strip()} {error}")
        finally:
            daemon.terminate()
            try:
                daemon.wait(timeout=20)
            except subprocess.TimeoutExpired:
                daemon.kill()
                daemon.wait()


def check_metadata(problems, where, doc):
    ok = problems.check(isinstance(doc, dict), where, "not a mapping")
    ok = ok and problems.check((doc.get("apiVersion"), doc.get("kind")) in KNOWN_KINDS, where,
                               f"unknown apiVersion/kind {doc.get('apiVersion')}/{doc.get('kind')}")
    if not ok or doc["kind"] == "Kustomization":
        return ok
    name = (doc.get("metadata") or {}).get("name", "")
    return problems.check(bool(DNS_LABEL.match(str(name))), where,
                          f"metadata.name '{name}' is not a DNS label")


def check_pod(problems, where, pod, refs, is_daemon):
    configmaps, secrets, claims = refs
    spec = pod.get("spec") or {}
    security = spec.get("securityContext") or {}
    problems.check(security.get("runAsNonRoot") is True, where, "pod runAsNonRoot is not true")
    problems.check(security.get("runAsUser", 0) != 0, where, "pod runAsUser is root or unset")
    if is_daemon:
        problems.check(bool(security.get("supplementalGroups")), where,
                       "no supplementalGroups: the render group is needed for /dev/dri/renderD*")
        problems.check(any(spec.get("nodeSelector", {}).get(label) == "true"
                           for label in NFD_GPU_LABELS),
                       where, f"no nodeSelector on an NFD Intel GPU label {NFD_GPU_LABELS}")
    volumes = {v.get("name"): v for v in spec.get("volumes") or []}
    check_cluster.check_references(problems, where, spec, secrets, claims)
    for name, volume in volumes.items():
        if "configMap" in volume:
            source = volume["configMap"]
            data = configmaps.get(source.get("name"))
            if problems.check(data is not None, where,
                              f"volume {name}: no ConfigMap '{source.get('name')}'"):
                for item in source.get("items") or []:
                    problems.check(item.get("key") in data, where,
                                   f"volume {name}: ConfigMap has no key '{item.get('key')}'")
    containers = spec.get("containers") or []
    problems.check(bool(containers), where, "no containers")
    for container in containers + (spec.get("initContainers") or []):
        cwhere = f"{where}: container {container.get('name')}"
        problems.check(bool(container.get("image")), cwhere, "no image")
        for mount in container.get("volumeMounts") or []:
            problems.check(mount.get("name") in volumes, cwhere,
                           f"mount of volume '{mount.get('name')}', which is not defined")
        csec = container.get("securityContext") or {}
        problems.check(csec.get("allowPrivilegeEscalation") is False, cwhere,
                       "allowPrivilegeEscalation is not false")
        problems.check("ALL" in ((csec.get("capabilities") or {}).get("drop") or []), cwhere,
                       "capabilities do not drop ALL")
    for container in containers:
        cwhere = f"{where}: container {container.get('name')}"
        csec = container.get("securityContext") or {}
        problems.check(csec.get("runAsUser", security.get("runAsUser")) != 0
                       and csec.get("runAsNonRoot", True) is not False, cwhere, "runs as root")
        resources = container.get("resources") or {}
        limit = (resources.get("limits") or {}).get(GPU_RESOURCE)
        request = (resources.get("requests") or {}).get(GPU_RESOURCE, limit)
        if not is_daemon:  # the GPU is the daemon's: a second request for it stays Pending
            problems.check(limit is None and request is None, cwhere,
                           f"a client asks for {GPU_RESOURCE}, which the daemon's pod holds")
            continue
        problems.check(isinstance(limit, int) and limit >= 1, cwhere,
                       f"no integer limits.{GPU_RESOURCE}")
        problems.check(request == limit, cwhere,
                       f"requests.{GPU_RESOURCE} differs from its limit (extended resources)")
        config = daemon_config(configmaps)
        check_probes(problems, cwhere, container, config)
        check_memory(problems, cwhere, container, config)


def daemon_config(configmaps):
    """The daemon's settings from the ConfigMap transcoded-config."""
    text = (configmaps.get("transcoded-config") or {}).get("transcoded.yaml") or "{}"
    try:
        return yaml.safe_load(text) or {}
    except yaml.YAMLError:
        return {}


def quantity_bytes(value):
    """Bytes of a memory quantity ("33Gi", "512Mi", 1073741824); None if not one of those."""
    match = QUANTITY.match(str(value))
    if not match:
        return None
    unit = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4}.get(match.group(2), 0)
    return int(match.group(1)) * 1024 ** unit


def memory_limit(container):
    return quantity_bytes(((container.get("resources") or {}).get("limits") or {})
                          .get("memory", ""))


def check_memory(problems, where, container, config):
    """An OOM kill takes the whole pod (memory.oom.group, Kubernetes 1.28+), so every job at
    once with its worker's whole address space (slots x devices x worker_memory_mb) plus the
    daemon's own (its memory request) must fit the memory limit."""
    resources = container.get("resources") or {}
    limit = memory_limit(container)
    own = quantity_bytes((resources.get("requests") or {}).get("memory", ""))
    slots = config.get("slots", 0)
    worker_mb = config.get("worker_memory_mb", 8192)
    if not problems.check(limit is not None and own is not None, where,
                          "memory limit and request must be set (Ki/Mi/Gi/Ti)"):
        return
    problems.check(isinstance(slots, int) and slots > 0, where,
                   "slots must be set (> 0): the default lets up to 16 jobs a GPU run, "
                   "whatever the memory limit")
    if not isinstance(slots, int) or not isinstance(worker_mb, int) or worker_mb <= 0:
        return
    devices = SOFTWARE_DEVICES + ((resources.get("limits") or {}).get(GPU_RESOURCE) or 0)
    needed = slots * devices * worker_mb * 1024 ** 2 + own
    problems.check(needed <= limit, where,
                   f"{slots} slots x {devices} devices x worker_memory_mb {worker_mb} + the "
                   f"daemon's {own // 1024 ** 2} MiB = {needed // 1024 ** 2} MiB exceed "
                   f"limits.memory {limit // 1024 ** 2} MiB: one OOM kill ends every job")


def check_probes(problems, where, container, config):
    """gRPC health probes on the health_listen port (plaintext: a kubelet's gRPC probe cannot
    speak TLS, so a probe on a TLS `listen` fails); a cluster daemon's liveness probe is a TCP
    one (check_cluster says why)."""
    ports = {p.get("containerPort") for p in container.get("ports") or []}
    health = str(config.get("health_listen", ""))
    health_port = int(health.rsplit(":", 1)[1]) if ":" in health else None
    problems.check(health_port in ports, where,
                   f"health_listen '{health}' is not a container port {sorted(ports)}")
    grpc_probes = ["startupProbe", "readinessProbe"]
    if check_cluster.is_cluster_daemon(container):
        tcp = (container.get("livenessProbe") or {}).get("tcpSocket") or {}
        problems.check(tcp.get("port") in ports, where,
                       f"livenessProbe is not a tcpSocket probe on a container port "
                       f"{sorted(ports)}")
    else:
        grpc_probes.append("livenessProbe")
    for probe in grpc_probes:
        grpc = (container.get(probe) or {}).get("grpc") or {}
        problems.check(grpc.get("port") == health_port and health_port in ports, where,
                       f"{probe} is not a grpc probe on health_listen's port {health_port}")


def check_images(problems, by_kind, version):
    """One image reference, set in the kustomization's `images:` to the VERSION file's version,
    and the same written in every manifest (which `kubectl apply -f` uses as it is)."""
    wanted = f"{IMAGE}:{version}"
    for where, doc in by_kind.get("Kustomization", []):
        images = [i for i in doc.get("images") or [] if i.get("name") == IMAGE]
        problems.check(len(images) == 1 and f"{images[0].get('newName')}:"
                       f"{images[0].get('newTag')}" == wanted, where,
                       f"images: must set {IMAGE} to {wanted} (VERSION)")
    for kind in ("DaemonSet", "Job", "StatefulSet"):
        for where, doc in by_kind.get(kind, []):
            spec = doc["spec"]["template"].get("spec") or {}
            for c in (spec.get("containers") or []) + (spec.get("initContainers") or []):
                image = str(c.get("image", ""))
                if image.split(":")[0] == IMAGE:
                    problems.check(image == wanted, f"{where}: container {c.get('name')}",
                                   f"image {image}, not {wanted} (VERSION)")


def check_all(problems, documents, settings, version):
    by_kind = {}
    for name, docs in documents.items():
        for i, doc in enumerate(docs):
            where = f"{name}[{i}]"
            if check_metadata(problems, where, doc):
                by_kind.setdefault(doc["kind"], []).append((where, doc))
    configmaps = {d["metadata"]["name"]: d.get("data") or {}
                  for _, d in by_kind.get("ConfigMap", [])}
    claims = {d["metadata"]["name"] for _, d in by_kind.get("PersistentVolumeClaim", [])}
    refs = (configmaps, check_cluster.secret_keys(by_kind), claims)
    daemons = by_kind.get("DaemonSet", [])
    limits = [memory_limit(c) for _, d in daemons for c in d["spec"]["template"]["spec"]
              .get("containers") or []]
    for where, doc in by_kind.get("ConfigMap", []):
        for key, text in (doc.get("data") or {}).items():
            if key.endswith((".yaml", ".yml")):
                check_daemon_config(problems, f"{where} {key}", text, settings,
                                    limits[0] if limits else None)
    problems.check(len(daemons) == 1, "deploy/kubernetes", "expected one DaemonSet")
    for where, doc in daemons:
        spec = doc.get("spec") or {}
        template = spec.get("template") or {}
        selector = (spec.get("selector") or {}).get("matchLabels") or {}
        problems.check(labels_match(selector, (template.get("metadata") or {}).get("labels") or {}),
                       where, "spec.selector.matchLabels do not match the template's labels")
        check_pod(problems, where, template, refs, is_daemon=True)
    for where, doc in by_kind.get("Job", []):
        template = (doc.get("spec") or {}).get("template") or {}
        problems.check((template.get("spec") or {}).get("restartPolicy") in ("Never", "OnFailure"),
                       where, "a Job's restartPolicy must be Never or OnFailure")
        check_pod(problems, where, template, refs, is_daemon=False)
        services = {d["metadata"]["name"] for _, d in by_kind.get("Service", [])}
        for c in (template.get("spec") or {}).get("containers") or []:
            server = check_cluster.flag_value(c, "--server") or ""
            problems.check((c.get("command") or [""])[-1].endswith("transcode")
                           and (c.get("args") or [""])[0] == "submit"
                           and server.split(":")[0] in services,
                           where, "the Job does not run `transcode submit --server SERVICE:PORT` "
                           f"at a Service here {sorted(services)}")
    problems.check(bool(by_kind.get("Service")), "deploy/kubernetes", "no Service")
    for where, doc in by_kind.get("Service", []):
        spec = doc.get("spec") or {}
        targets = [(w, d) for w, d in daemons + by_kind.get("StatefulSet", [])
                   if labels_match(spec.get("selector") or {},
                                   d["spec"]["template"]["metadata"].get("labels") or {})]
        if problems.check(bool(targets), where,
                          "selector matches no DaemonSet's or StatefulSet's pods"):
            containers = targets[0][1]["spec"]["template"]["spec"]["containers"]
            ports = {p.get(k) for c in containers for p in c.get("ports") or []
                     for k in ("name", "containerPort")}
            for port in spec.get("ports") or []:
                problems.check(port.get("targetPort", port.get("port")) in ports, where,
                               f"targetPort {port.get('targetPort')} is no container port")
    for where, doc in by_kind.get("Kustomization", []):
        for resource in doc.get("resources") or []:
            problems.check(resource in documents, where, f"resource {resource} does not exist")
    check_images(problems, by_kind, version)
    check_cluster.check_cluster(problems, by_kind)


def self_test(documents, settings, version):
    """Each mutation must be reported: the checker is no rubber stamp."""
    def find(docs, kind, every=False):
        found = [d for ds in docs.values() for d in ds if d.get("kind") == kind]
        return found if every else found[0]

    def daemonset(docs):
        return find(docs, "DaemonSet")

    def pod(docs):
        return daemonset(docs)["spec"]["template"]["spec"]

    def container(docs):
        return pod(docs)["containers"][0]

    mutations = {
        "selector": lambda d: daemonset(d)["spec"]["selector"]["matchLabels"].update(x="y"),
        "gpu limit": lambda d: container(d)["resources"]["limits"].pop(GPU_RESOURCE),
        "node selector": lambda d: pod(d).pop("nodeSelector"),
        "probe port": lambda d: container(d)["readinessProbe"]["grpc"].update(port=1),
        "http probe": lambda d: container(d).update(readinessProbe={"httpGet": {"port": 50051}}),
        "root": lambda d: pod(d)["securityContext"].update(runAsNonRoot=False),
        "render group": lambda d: pod(d)["securityContext"].pop("supplementalGroups"),
        "volume": lambda d: pod(d).update(volumes=pod(d)["volumes"][1:]),
        "config key": lambda d: find(d, "ConfigMap")["data"].update(
            {"transcoded.yaml": "listen: 0.0.0.0:1\nbogus: 1\n"}),
        "kind": lambda d: daemonset(d).update(apiVersion="extensions/v1beta1"),
        "probe on the TLS port": lambda d: container(d)["readinessProbe"]["grpc"].update(
            port=50051),
        "no health_listen": lambda d: find(d, "ConfigMap")["data"].update(
            {"transcoded.yaml": find(d, "ConfigMap")["data"]["transcoded.yaml"].replace(
                "health_listen:", "# health_listen:")}),
        "memory limit below the jobs'": lambda d: container(d)["resources"]["limits"].update(
            memory="16Gi"),
        "slots by default": lambda d: find(d, "ConfigMap")["data"].update(
            {"transcoded.yaml": find(d, "ConfigMap")["data"]["transcoded.yaml"].replace(
                "slots: 2", "slots: 0")}),
        "image latest": lambda d: container(d).update(image=f"{IMAGE}:latest"),
        "kustomize tag": lambda d: find(d, "Kustomization")["images"][0].update(newTag="latest"),
    }
    jobs = find(documents, "Job", every=True)
    if jobs:
        job_container = (lambda d: find(d, "Job")["spec"]["template"]["spec"]["containers"][0])
        mutations["client asks for the GPU"] = lambda d: job_container(d).update(
            resources={"limits": {GPU_RESOURCE: 1}})
        mutations["client at no Service"] = lambda d: job_container(d)["args"].__setitem__(
            job_container(d)["args"].index("--server") + 1, "elsewhere:50051")
    if check_cluster.is_cluster_daemon(container(documents)):
        mutations.update(check_cluster.mutations(daemonset, container, find))
    failed = []
    for name, mutate in mutations.items():
        mutated = copy.deepcopy(documents)
        mutate(mutated)
        problems = Problems()
        check_all(problems, mutated, settings, version)
        if not problems.items:
            failed.append(name)
    return failed


def check_directory(source, directory, settings, version):
    """The problems of one directory of manifests, each prefixed with the directory."""
    documents = load_documents(os.path.join(source, directory))
    problems = Problems()
    check_all(problems, documents, settings, version)
    count = sum(len(d) for d in documents.values())
    print(f"{directory}: {count} documents in {len(documents)} files")
    return [f"{directory}/{item}" for item in problems.items]


def self_test_directory(source, directory, settings, version):
    documents = load_documents(os.path.join(source, directory))
    return [f"self-test: a broken manifest in {directory} ({name}) was not caught"
            for name in self_test(documents, settings, version)]


def main():
    source = sys.argv[1] if len(sys.argv) > 1 else "."
    settings = daemon_settings()
    problems = Problems()
    container_config = os.path.join(source, "deploy", "container", "transcoded.yaml")
    with open(container_config, encoding="utf-8") as f:
        check_daemon_config(problems, "deploy/container/transcoded.yaml", f.read(), settings)
    items = problems.items
    with open(os.path.join(source, "VERSION"), encoding="utf-8") as f:
        version = f.read().strip()
    for directory in DIRECTORIES:
        items += check_directory(source, directory, settings, version)
    if "--self-test" in sys.argv:
        os.environ.pop("TRANSCODED", None)  # the mutations need no daemon runs
        for directory in DIRECTORIES:
            items += self_test_directory(source, directory, settings, version)
    return report(items)


def report(items):
    """Prints each problem and a verdict; the exit status."""
    for problem in items:
        print("FAIL", problem)
    print("ok" if not items else f"{len(items)} problems")
    return 1 if items else 0


if __name__ == "__main__":
    sys.exit(main())
