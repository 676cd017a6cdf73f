#!/usr/bin/python3
"""Validates every Kubernetes manifest of deploy/kubernetes (and cluster/) against the API's
schema, offline: the models that python3-kubernetes generates from the Kubernetes OpenAPI
document (Debian's package; no download). Each document is walked as the API server decodes it
strictly (kubectl apply --validate=strict): a field the schema does not have is refused (a
misspelling would otherwise be dropped silently and the pod run without it), and so is a value of
the wrong type; then the models are built from it, which refuses a missing required field.

Debian 12's python3-kubernetes is 22.6 (the Kubernetes 1.22 API). The fields these manifests use
that are newer than that are listed in NEWER_FIELDS with the release that made them GA, and
checked the same way; the manifests need Kubernetes 1.27 or later (gRPC probes).

  check_schema.py SOURCE_DIR               # validate the manifests
  check_schema.py SOURCE_DIR --self-test   # also prove a misspelled field is refused
"""

import copy
import os
import re
import sys

import yaml
from kubernetes import client

from check_manifests import report

# apiVersion/kind -> the generated model; Kustomization is not an API object (KUSTOMIZATION).
MODELS = {("v1", "Namespace"): "V1Namespace", ("v1", "ConfigMap"): "V1ConfigMap",
          ("v1", "Service"): "V1Service", ("v1", "Secret"): "V1Secret",
          ("v1", "PersistentVolumeClaim"): "V1PersistentVolumeClaim",
          ("apps/v1", "DaemonSet"): "V1DaemonSet", ("apps/v1", "StatefulSet"): "V1StatefulSet",
          ("batch/v1", "Job"): "V1Job", ("policy/v1", "PodDisruptionBudget"):
          "V1PodDisruptionBudget"}
# Fields the 1.22 models lack: {model: {json field: type}}. Probe.grpc is GA in 1.27.
NEWER_FIELDS = {"V1Probe": {"grpc": "GRPCAction"}}
NEWER_MODELS = {"GRPCAction": {"port": "int", "service": "str"}}
# resource.Quantity is a string in the models, but the API takes a number as well ("cpu: 1").
QUANTITIES = {("V1ResourceRequirements", "limits"), ("V1ResourceRequirements", "requests"),
              ("V1EmptyDirVolumeSource", "sizeLimit")}
# kustomize's own file: the fields these directories use, per kustomize's reference.
KUSTOMIZATION = {"apiVersion": "str", "kind": "str", "namespace": "str",
                 "resources": "list[str]", "images": "list[KustomizeImage]",
                 "labels": "list[object]", "commonLabels": "dict(str, str)"}
KUSTOMIZE_IMAGE = {"name": "str", "newName": "str", "newTag": "str", "digest": "str"}
DIRECTORIES = (os.path.join("deploy", "kubernetes"),
               os.path.join("deploy", "kubernetes", "cluster"))
SCALARS = {"str": str, "int": int, "bool": bool, "float": (int, float)}


def fields_of(model):
    """{json field: type string} of a generated model, an addition, or kustomize's."""
    if model == "KustomizeImage":
        return KUSTOMIZE_IMAGE
    if model in NEWER_MODELS:
        return NEWER_MODELS[model]
    cls = getattr(client, model)
    fields = {cls.attribute_map[a]: t for a, t in cls.openapi_types.items()}
    fields.update(NEWER_FIELDS.get(model, {}))
    return fields


def check_value(value, type_name, path, problems, owner=None, field=None):
    if type_name == "object":  # IntOrString, RawExtension: any JSON value
        return
    if (owner, field) in QUANTITIES and isinstance(value, dict):
        for key, quantity in value.items():
            if not isinstance(quantity, (str, int, float)) or isinstance(quantity, bool):
                problems.append(f"{path}.{key}: a quantity must be a string or a number")
        return
    if (owner, field) in QUANTITIES and isinstance(value, (int, float)):
        return
    if type_name.startswith("list["):
        if not isinstance(value, list):
            return problems.append(f"{path}: expected a list")
        for i, item in enumerate(value):
            check_value(item, type_name[5:-1], f"{path}[{i}]", problems)
        return
    if type_name.startswith("dict("):
        if not isinstance(value, dict):
            return problems.append(f"{path}: expected a mapping")
        inner = type_name[type_name.index(",") + 1:-1].strip()
        for key, item in value.items():
            check_value(item, inner, f"{path}.{key}", problems)
        return
    if type_name in SCALARS:
        ok = isinstance(value, SCALARS[type_name]) and not (
            type_name != "bool" and isinstance(value, bool))
        if not ok:
            problems.append(f"{path}: expected {type_name}, got {type(value).__name__} "
                            f"{value!r}")
        return
    if type_name == "datetime":
        return
    check_object(value, type_name, path, problems)


def check_object(value, model, path, problems):
    """Every key of `value` is a field of `model`, of the field's type (recursively)."""
    if not isinstance(value, dict):
        return problems.append(f"{path}: expected a mapping ({model})")
    fields = fields_of(model)
    for key, item in value.items():
        if key not in fields:
            problems.append(f"{path}: unknown field \"{key}\" ({model})")
            continue
        check_value(item, fields[key], f"{path}.{key}", problems, model, key)


def build_models(doc, model, where, problems):
    """The models' constructors refuse a missing required field (e.g. a container's name)."""
    stripped = strip_newer(copy.deepcopy(doc))
    try:
        client.ApiClient()._ApiClient__deserialize(stripped, model)
    except (ValueError, TypeError) as e:
        problems.append(f"{where}: {e}")


def strip_newer(value):
    """The document without the NEWER_FIELDS (checked above), for the 1.22 constructors."""
    if isinstance(value, dict):
        value.pop("grpc", None)
        for item in value.values():
            strip_newer(item)
    elif isinstance(value, list):
        for item in value:
            strip_newer(item)
    return value


def check_document(doc, where):
    problems = []
    if not isinstance(doc, dict):
        return [f"{where}: not a mapping"]
    key = (doc.get("apiVersion"), doc.get("kind"))
    if key == ("kustomize.config.k8s.io/v1beta1", "Kustomization"):
        fields = KUSTOMIZATION
        for name, value in doc.items():
            if name not in fields:
                problems.append(f"{where}: unknown field \"{name}\" (Kustomization)")
            else:
                check_value(value, fields[name], f"{where}.{name}", problems)
        return problems
    model = MODELS.get(key)
    if model is None:
        return [f"{where}: no schema for apiVersion/kind {key[0]}/{key[1]}"]
    check_object(doc, model, where, problems)
    if not problems:
        build_models(doc, model, where, problems)
    return problems


def load(source):
    """[(where, document)] of every manifest."""
    documents = []
    for directory in DIRECTORIES:
        path = os.path.join(source, directory)
        for name in sorted(os.listdir(path)):
            if not name.endswith((".yaml", ".yml")):
                continue
            with open(os.path.join(path, name), encoding="utf-8") as f:
                for i, doc in enumerate(d for d in yaml.safe_load_all(f) if d is not None):
                    documents.append((f"{directory}/{name}[{i}]", doc))
    return documents


def first_container(documents):
    for _, doc in documents:
        if doc.get("kind") == "DaemonSet":
            return doc["spec"]["template"]["spec"]["containers"][0]
    raise LookupError("no DaemonSet")


def self_test(documents):
    """Broken copies that must be refused: a misspelled field at three depths, a wrong type,
    a missing required field."""
    def container(docs):
        return first_container(docs)

    def rename(mapping, old, new):
        mapping[new] = mapping.pop(old)

    mutations = {
        "misspelled imagePullPolicy": lambda d: rename(container(d), "imagePullPolicy",
                                                      "imagePullPolcy"),
        "misspelled probe field": lambda d: rename(container(d)["readinessProbe"],
                                                   "periodSeconds", "periodSecond"),
        "misspelled grpc port": lambda d: rename(container(d)["readinessProbe"]["grpc"],
                                                 "port", "prot"),
        "misspelled kustomize field": lambda d: next(
            doc for _, doc in d if doc.get("kind") == "Kustomization").update(image=[]),
        "port as text": lambda d: container(d)["ports"][0].update(containerPort="50051"),
        "container without a name": lambda d: container(d).pop("name"),
    }
    missed = []
    for name, mutate in mutations.items():
        mutated = copy.deepcopy(documents)
        mutate(mutated)
        if not any(check_document(doc, where) for where, doc in mutated):
            missed.append(name)
    return missed


def main():
    source = sys.argv[1] if len(sys.argv) > 1 else "."
    documents = load(source)
    problems = [p for where, doc in documents for p in check_document(doc, where)]
    print(f"{len(documents)} documents checked against the Kubernetes API schema")
    if "--self-test" in sys.argv:
        problems += [f"self-test: not refused: {name}" for name in self_test(documents)]
    return report(problems)


if __name__ == "__main__":
    sys.exit(main())
