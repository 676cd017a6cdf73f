"""The cluster manifests' own checks (deploy/kubernetes/cluster, docs/cluster.md), for
check_manifests.py: the daemons take --store from a Secret and --node-id from the node's name,
their liveness probe is not the health service (NOT_SERVING during a database outage), a
PodDisruptionBudget covers them, the example PostgreSQL StatefulSet has its headless Service,
and the store URL names a Service of the manifests. Also, for every pod: each Secret key and
PersistentVolumeClaim it uses is defined."""

import re
import urllib.parse

ARG_FROM_ENV = re.compile(r"^\$\(([A-Za-z_][A-Za-z0-9_]*)\)$")


def is_cluster_daemon(container):
    return "--store" in (container.get("args") or [])


def flag_value(container, flag):
    args = container.get("args") or []
    return args[args.index(flag) + 1] if flag in args[:-1] else None


def documents_of(by_kind, kind):
    return [doc for _, doc in by_kind.get(kind, [])]


def secret_keys(by_kind):
    """{Secret name: its keys} (data and stringData)."""
    return {d["metadata"]["name"]: set(d.get("data") or {}) | set(d.get("stringData") or {})
            for d in documents_of(by_kind, "Secret")}


def check_references(problems, where, spec, secrets, claims):
    """Every secretKeyRef, secret volume and claim of the pod names something defined here."""
    for container in (spec.get("containers") or []) + (spec.get("initContainers") or []):
        for env in container.get("env") or []:
            ref = (env.get("valueFrom") or {}).get("secretKeyRef")
            if ref:
                problems.check(ref.get("key") in secrets.get(ref.get("name"), ()), where,
                               f"env {env.get('name')}: no Secret '{ref.get('name')}' with key "
                               f"'{ref.get('key')}'")
    for volume in spec.get("volumes") or []:
        if "secret" in volume:
            name = volume["secret"].get("secretName")
            keys = secrets.get(name)
            if problems.check(keys is not None, where,
                              f"volume {volume.get('name')}: no Secret '{name}'"):
                for item in volume["secret"].get("items") or []:
                    problems.check(item.get("key") in keys, where,
                                   f"volume {volume.get('name')}: Secret has no key "
                                   f"'{item.get('key')}'")
        claim = (volume.get("persistentVolumeClaim") or {}).get("claimName")
        if claim is not None:
            problems.check(claim in claims, where,
                           f"volume {volume.get('name')}: no PersistentVolumeClaim '{claim}'")


def env_source(container, name):
    return next((e.get("valueFrom") or {} for e in container.get("env") or []
                 if e.get("name") == name), {})


def check_cluster_daemon(problems, where, container, volumes):
    """--store from a Secret, never written out; --node-id the node's name; the password file
    on a Secret volume; a liveness probe that a database outage does not fail."""
    store = ARG_FROM_ENV.match(flag_value(container, "--store") or "")
    problems.check(bool(store) and "secretKeyRef" in env_source(container, store.group(1)),
                   where, "--store is not $(VAR) of an env from a secretKeyRef")
    node = ARG_FROM_ENV.match(flag_value(container, "--node-id") or "")
    field = (env_source(container, node.group(1)) if node else {}).get("fieldRef") or {}
    problems.check(field.get("fieldPath") == "spec.nodeName", where,
                   "--node-id is not $(VAR) of an env from fieldRef spec.nodeName")
    password = flag_value(container, "--store-password-file")
    if password is not None:
        mounts = [m for m in container.get("volumeMounts") or []
                  if "secret" in volumes.get(m.get("name"), {})]
        problems.check(any(password.startswith(m.get("mountPath", "") + "/") for m in mounts),
                       where, f"--store-password-file {password} is on no Secret volume")
    liveness = container.get("livenessProbe") or {}
    problems.check(bool(liveness) and "grpc" not in liveness, where,
                   "livenessProbe is the gRPC health service, NOT_SERVING while the database is "
                   "down: every node would be restarted and its running jobs killed")


def labels_match(selector, labels):
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def pod_labels(doc):
    return ((doc.get("spec") or {}).get("template") or {}).get("metadata", {}).get("labels") or {}


def check_disruption_budget(problems, by_kind, daemons):
    budgets = by_kind.get("PodDisruptionBudget", [])
    problems.check(bool(budgets), "cluster", "no PodDisruptionBudget")
    for where, doc in budgets:
        selector = ((doc.get("spec") or {}).get("selector") or {}).get("matchLabels") or {}
        problems.check(any(labels_match(selector, pod_labels(d)) for _, d in daemons), where,
                       "selector matches no DaemonSet's pods")
        spec = doc.get("spec") or {}
        problems.check(("minAvailable" in spec) != ("maxUnavailable" in spec), where,
                       "needs one of minAvailable and maxUnavailable")


def check_stateful_sets(problems, by_kind):
    """Selector and labels agree; the governing Service is headless and selects the pods;
    every mount is a volume or a claim template."""
    services = {d["metadata"]["name"]: d.get("spec") or {}
                for d in documents_of(by_kind, "Service")}
    for where, doc in by_kind.get("StatefulSet", []):
        spec = doc.get("spec") or {}
        labels = pod_labels(doc)
        selector = (spec.get("selector") or {}).get("matchLabels") or {}
        problems.check(labels_match(selector, labels), where,
                       "spec.selector.matchLabels do not match the template's labels")
        governing = services.get(spec.get("serviceName"))
        if problems.check(governing is not None, where,
                          f"serviceName '{spec.get('serviceName')}' is no Service here"):
            problems.check(governing.get("clusterIP") == "None", where,
                           "its Service is not headless (clusterIP: None)")
            problems.check(labels_match(governing.get("selector") or {}, labels), where,
                           "its Service selects none of its pods")
        pod = (spec.get("template") or {}).get("spec") or {}
        security = pod.get("securityContext") or {}
        problems.check(security.get("runAsNonRoot") is True, where, "pod runAsNonRoot is not true")
        names = {v.get("name") for v in pod.get("volumes") or []}
        names |= {(t.get("metadata") or {}).get("name") for t in spec.get("volumeClaimTemplates")
                  or []}
        for container in pod.get("containers") or []:
            for mount in container.get("volumeMounts") or []:
                problems.check(mount.get("name") in names, f"{where}: {container.get('name')}",
                               f"mount of volume '{mount.get('name')}', which is not defined")


def check_store_url(problems, by_kind, daemons):
    """The URL the daemons get (in an example Secret here) names a Service of the manifests,
    and carries no password."""
    services = {d["metadata"]["name"] for d in documents_of(by_kind, "Service")}
    secrets = {d["metadata"]["name"]: {**(d.get("data") or {}), **(d.get("stringData") or {})}
               for d in documents_of(by_kind, "Secret")}
    for where, doc in daemons:
        for container in doc["spec"]["template"]["spec"].get("containers") or []:
            store = ARG_FROM_ENV.match(flag_value(container, "--store") or "")
            ref = env_source(container, store.group(1)).get("secretKeyRef") if store else None
            url = (secrets.get((ref or {}).get("name")) or {}).get((ref or {}).get("key"))
            if not isinstance(url, str):
                continue  # no example Secret with the URL: a managed database's
            parts = urllib.parse.urlsplit(url)
            problems.check(parts.scheme in ("postgresql", "postgres"), where,
                           f"store URL scheme '{parts.scheme}' is not postgresql")
            problems.check(parts.password is None, where,
                           "the store URL carries a password: it would be a visible argument")
            host = (parts.hostname or "").split(".")[0]
            problems.check(host in services, where, f"store URL host '{host}' is no Service here")


def check_cluster(problems, by_kind):
    """The checks of a directory whose DaemonSet runs cluster daemons (--store)."""
    daemons = by_kind.get("DaemonSet", [])
    clustered = [(w, d) for w, d in daemons
                 if any(is_cluster_daemon(c) for c in d["spec"]["template"]["spec"]
                        .get("containers") or [])]
    if not clustered:
        return
    for where, doc in clustered:
        pod = doc["spec"]["template"]["spec"]
        volumes = {v.get("name"): v for v in pod.get("volumes") or []}
        for container in pod.get("containers") or []:
            check_cluster_daemon(problems, f"{where}: container {container.get('name')}",
                                 container, volumes)
        problems.check(all("hostPath" not in v for v in volumes.values()), where,
                       "a hostPath volume: a cluster's media and jobs are shared, not per node")
    check_disruption_budget(problems, by_kind, clustered)
    check_stateful_sets(problems, by_kind)
    check_store_url(problems, by_kind, clustered)


def mutations(daemonset, container, find):
    """Broken cluster manifests the checks must catch (for check_manifests' --self-test)."""
    def args(docs, flag, value):
        a = container(docs)["args"]
        a[a.index(flag) + 1] = value

    def env(docs, name):
        return next(e for e in container(docs)["env"] if e["name"] == name)

    return {
        "store URL written out": lambda d: args(d, "--store", "postgresql://u:pw@db/jobs"),
        "node id from the pod name": lambda d: env(d, "TC_NODE_NAME")["valueFrom"].update(
            fieldRef={"fieldPath": "metadata.name"}),
        "secret key": lambda d: env(d, "TC_STORE_URL")["valueFrom"]["secretKeyRef"].update(
            key="nope"),
        "grpc liveness": lambda d: container(d).update(livenessProbe={"grpc": {"port": 50051}}),
        "budget selector": lambda d: find(d, "PodDisruptionBudget")["spec"]["selector"][
            "matchLabels"].update(x="y"),
        "database service not headless": lambda d: next(
            s for s in find(d, "Service", every=True) if s["metadata"]["name"] ==
            find(d, "StatefulSet")["spec"]["serviceName"])["spec"].pop("clusterIP"),
        "claim": lambda d: next(v for v in daemonset(d)["spec"]["template"]["spec"]["volumes"]
                                if "persistentVolumeClaim" in v)["persistentVolumeClaim"].update(
                                    claimName="nope"),
        "hostPath": lambda d: daemonset(d)["spec"]["template"]["spec"]["volumes"].append(
            {"name": "x", "hostPath": {"path": "/x"}}),
    }
