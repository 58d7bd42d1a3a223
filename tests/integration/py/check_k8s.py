#!/usr/bin/env python3
"""Offline structural check of nfstorm's Kubernetes manifests (deploy/k8s/).

There is no cluster in the tests, and kubectl's client-side dry run still
wants a server for its REST mapping, so this checks what a cluster would
refuse and what would make the fleet not work though the API accepted it:
known apiVersion/kind pairs with their required fields, names, namespaces,
selectors that match their pod templates, every Secret, ConfigMap, claim
and volume referenced existing in the set, the agents' NFSTORM_AGENT_*
variables being real agent options, the Service port being the port the
coordinator listens on and the one the agents dial, the files named on the
command lines lying on the right volumes, one image for every container.

usage: check_k8s.py DIR AGENT_HELP.txt NFSTORM_HELP.txt
Prints one line per problem and exits 1, or "k8s: ... ok" and exits 0.
"""
import base64
import os
import re
import sys

import yaml

KINDS = {  # (apiVersion, kind) -> namespaced?
    ("v1", "Namespace"): False,
    ("v1", "Secret"): True,
    ("v1", "ConfigMap"): True,
    ("v1", "Service"): True,
    ("v1", "PersistentVolume"): False,
    ("v1", "PersistentVolumeClaim"): True,
    ("apps/v1", "DaemonSet"): True,
    ("apps/v1", "Deployment"): True,
    ("batch/v1", "Job"): True,
    ("networking.k8s.io/v1", "NetworkPolicy"): True,
}
REQUIRED = {  # kind -> dotted paths that must be present
    "Service": ["spec.selector", "spec.ports"],
    "PersistentVolume": ["spec.capacity.storage", "spec.accessModes"],
    "PersistentVolumeClaim": ["spec.accessModes", "spec.resources.requests.storage"],
    "DaemonSet": ["spec.selector.matchLabels", "spec.template.metadata.labels",
                  "spec.template.spec.containers"],
    "Deployment": ["spec.selector.matchLabels", "spec.template.metadata.labels",
                   "spec.template.spec.containers"],
    "Job": ["spec.template.metadata.labels", "spec.template.spec.containers",
            "spec.template.spec.restartPolicy"],
    "NetworkPolicy": ["spec.podSelector"],
}
WORKLOADS = ("DaemonSet", "Deployment", "Job")
DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$")
EFS_HANDLE = re.compile(r"^fs-[0-9A-Za-z]+(:[^:]*(:fsap-[0-9A-Za-z]+)?)?$")
# Options of the fleet contract (issue 10) that an agent or coordinator built
# before the dial-in code may not list in --help yet.
CONTRACT_AGENT = {"coordinator", "label"}
CONTRACT_RUN = {"listen", "expect", "expect-timeout", "min-agents", "pool", "spawn",
                "agent-path", "remote-secret-file"}

errors = []


def err(where, msg):
    errors.append(f"{where}: {msg}")


def get(obj, dotted):
    for part in dotted.split("."):
        if not isinstance(obj, dict) or part not in obj:
            return None
        obj = obj[part]
    return obj


def options_of(help_path):
    with open(help_path) as f:
        return set(re.findall(r"--([a-z][a-z0-9-]*)", f.read()))


def subset(sel, labels):
    return isinstance(sel, dict) and isinstance(labels, dict) and sel and \
        all(labels.get(k) == v for k, v in sel.items())


def load(d):
    objs = []
    for name in sorted(os.listdir(d)):
        if not name.endswith((".yaml", ".yml")):
            continue
        with open(os.path.join(d, name)) as f:
            try:
                docs = list(yaml.safe_load_all(f))
            except yaml.YAMLError as e:
                err(name, f"not YAML: {e}")
                continue
        for i, doc in enumerate(docs):
            if doc is None:
                continue
            if not isinstance(doc, dict):
                err(f"{name}#{i}", "a document that is not a mapping")
                continue
            objs.append((f"{name}#{i}", doc))
    return objs


def check_object(where, o, namespaces):
    key = (o.get("apiVersion"), o.get("kind"))
    if key not in KINDS:
        err(where, f"unknown apiVersion/kind {key[0]}/{key[1]}")
        return False
    name = get(o, "metadata.name")
    pattern = DNS_LABEL if key[1] in ("Namespace", "Service") else DNS_SUBDOMAIN
    if not isinstance(name, str) or not pattern.match(name):
        err(where, f"metadata.name {name!r} is not a valid {key[1]} name")
    ns = get(o, "metadata.namespace")
    if KINDS[key]:
        if ns is None:
            err(where, f"{key[1]} {name} has no metadata.namespace")
        elif namespaces and ns not in namespaces:
            err(where, f"{key[1]} {name} is in namespace {ns}, which the set does not create")
    elif ns is not None:
        err(where, f"{key[1]} is cluster-scoped but has namespace {ns}")
    for path in REQUIRED.get(key[1], []):
        if get(o, path) in (None, "", [], {}):
            err(where, f"{key[1]} {name} lacks {path}")
    return True


def main():
    if len(sys.argv) != 4:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    d, agent_help, run_help = sys.argv[1:]
    agent_opts = options_of(agent_help)
    run_opts = options_of(run_help)
    if "coordinator" not in agent_opts:
        print("note: this nfstorm-agent's --help lacks the dial-in options; taking "
              + ", ".join(sorted(CONTRACT_AGENT)) + " from the fleet contract")
        agent_opts |= CONTRACT_AGENT
    if "expect" not in run_opts:
        print("note: this nfstorm's --help lacks the dial-in options; taking "
              + ", ".join(sorted(CONTRACT_RUN)) + " from the fleet contract")
        run_opts |= CONTRACT_RUN

    objs = [(w, o) for w, o in load(d)]
    if not objs:
        err(d, "no manifests")
    namespaces = {get(o, "metadata.name") for _, o in objs if o.get("kind") == "Namespace"}
    objs = [(w, o) for w, o in objs if check_object(w, o, namespaces)]
    by = {}
    for w, o in objs:
        k = (o["kind"], get(o, "metadata.namespace"), get(o, "metadata.name"))
        if k in by:
            err(w, f"{k[0]} {k[2]} is defined twice")
        by[k] = o

    def find(kind, ns, name):
        return by.get((kind, ns if kind != "PersistentVolume" else None, name))

    # Secrets, ConfigMaps: keys.
    keys = {}
    for w, o in objs:
        if o["kind"] == "Secret":
            ks = set((o.get("stringData") or {}).keys())
            for k, v in (o.get("data") or {}).items():
                try:
                    base64.b64decode(str(v), validate=True)
                except Exception:
                    err(w, f"Secret data {k} is not base64")
                ks.add(k)
            keys[("Secret", get(o, "metadata.namespace"), get(o, "metadata.name"))] = ks
        elif o["kind"] == "ConfigMap":
            keys[("ConfigMap", get(o, "metadata.namespace"), get(o, "metadata.name"))] = \
                set((o.get("data") or {}).keys())

    # Claims and volumes.
    for w, o in objs:
        if o["kind"] == "PersistentVolume":
            csi = get(o, "spec.csi") or {}
            if csi.get("driver") == "efs.csi.aws.com" and not EFS_HANDLE.match(str(csi.get("volumeHandle", ""))):
                err(w, f"EFS volumeHandle {csi.get('volumeHandle')!r} is not fs-ID[:path[:fsap-ID]]")
        if o["kind"] == "PersistentVolumeClaim":
            vn = get(o, "spec.volumeName")
            if vn is not None:
                pv = find("PersistentVolume", None, vn)
                if pv is None:
                    err(w, f"claim {get(o, 'metadata.name')} names volume {vn}, not in the set")
                else:
                    if get(pv, "spec.storageClassName") != get(o, "spec.storageClassName"):
                        err(w, f"claim and volume {vn} have different storageClassName (it will not bind)")
                    if not set(get(o, "spec.accessModes") or []) <= set(get(pv, "spec.accessModes") or []):
                        err(w, f"claim asks for access modes volume {vn} does not offer")

    pods = {}  # component -> (where, namespace, pod template, workload)
    images = set()
    for w, o in objs:
        if o["kind"] not in WORKLOADS:
            continue
        ns = get(o, "metadata.namespace")
        tmpl = get(o, "spec.template") or {}
        labels = get(tmpl, "metadata.labels") or {}
        if o["kind"] != "Job" and not subset(get(o, "spec.selector.matchLabels"), labels):
            err(w, f"{o['kind']} selector does not match its pod template's labels")
        if o["kind"] == "Job" and get(tmpl, "spec.restartPolicy") not in ("Never", "OnFailure"):
            err(w, "a Job's restartPolicy must be Never or OnFailure")
        spec = get(tmpl, "spec") or {}
        vols = {}
        for v in spec.get("volumes") or []:
            if v.get("name") in vols:
                err(w, f"volume {v.get('name')} is defined twice")
            vols[v.get("name")] = v
            for kind, field, ref in (("Secret", "secret", "secretName"),
                                     ("ConfigMap", "configMap", "name"),
                                     ("PersistentVolumeClaim", "persistentVolumeClaim", "claimName")):
                if field not in v:
                    continue
                target = v[field].get(ref)
                if find(kind, ns, target) is None:
                    err(w, f"volume {v['name']} refers to {kind} {target}, not in the set")
                for it in v[field].get("items") or []:
                    have = keys.get((kind, ns, target))
                    if have is not None and it.get("key") not in have:
                        err(w, f"volume {v['name']} takes key {it.get('key')} that {kind} {target} lacks")
                mode = v[field].get("defaultMode")
                if kind == "Secret" and (mode is None or mode & 0o077):
                    err(w, f"secret volume {v['name']} is readable by group or others "
                           f"(defaultMode {mode if mode is None else oct(mode)}); nfstorm refuses such a secret file")
        for c in spec.get("containers") or []:
            cname = f"{w} container {c.get('name')}"
            if not c.get("name") or not c.get("image"):
                err(cname, "a container needs a name and an image")
                continue
            images.add(c["image"])
            if ":" not in c["image"].rsplit("/", 1)[-1] or c["image"].endswith(":latest"):
                err(cname, f"image {c['image']} has no fixed tag")
            mounts = []
            for m in c.get("volumeMounts") or []:
                if m.get("name") not in vols:
                    err(cname, f"mounts volume {m.get('name')}, not defined in the pod")
                    continue
                mounts.append((m["mountPath"].rstrip("/") or "/", m, vols[m["name"]]))
            env = {}
            for e in c.get("env") or []:
                if e.get("name") in env:
                    err(cname, f"variable {e.get('name')} is set twice")
                env[e.get("name")] = e.get("value")
            c["_mounts"], c["_env"] = mounts, env
        comp = labels.get("app.kubernetes.io/component", get(o, "metadata.name"))
        pods[comp] = (w, ns, tmpl, o)

    if len(images) > 1:
        err(d, f"containers use different images: {', '.join(sorted(images))}")

    def on_volume(path, mounts):
        """The mount holding path, and path relative to it."""
        best = None
        for mp, m, v in mounts:
            if path == mp or path.startswith(mp + "/"):
                if best is None or len(mp) > len(best[0]):
                    best = (mp, m, v)
        if best is None:
            return None, None, None
        return best[1], best[2], path[len(best[0]):].lstrip("/")

    def secret_file(cname, path, mounts, ns):
        m, v, rel = on_volume(path, mounts)
        if m is None or "secret" not in v:
            err(cname, f"secret file {path} is not on a secret volume")
            return
        items = v["secret"].get("items")
        names = [it.get("path") for it in items] if items else \
            sorted(keys.get(("Secret", ns, v["secret"].get("secretName")), ()))
        if rel not in names:
            err(cname, f"secret file {path}: the secret volume holds {', '.join(names) or 'nothing'}, not {rel}")

    # The coordinator.
    coord_port = None
    coord_labels = None
    agent_labels = None
    if "coordinator" not in pods:
        err(d, "no coordinator workload (app.kubernetes.io/component: coordinator)")
    else:
        w, ns, tmpl, _ = pods["coordinator"]
        coord_labels = get(tmpl, "metadata.labels")
        c = tmpl["spec"]["containers"][0]
        cname = f"{w} container {c['name']}"
        argv = list(c.get("command") or []) + list(c.get("args") or [])
        for ref in re.findall(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", " ".join(map(str, argv))):
            if ref not in c["_env"]:
                err(cname, f"the command uses $({ref}), which the container does not set")
        if len(argv) < 2 or os.path.basename(str(argv[0])) != "nfstorm" or argv[1] != "run":
            err(cname, "the command is not `nfstorm run ...`")
        else:
            opts, plan, i = {}, None, 2
            while i < len(argv):
                a = str(argv[i])
                if a.startswith("--"):
                    name = a[2:].split("=", 1)[0]
                    if name not in run_opts:
                        err(cname, f"nfstorm run has no option --{name}")
                    if "=" in a:
                        opts[name] = a.split("=", 1)[1]
                    elif i + 1 < len(argv) and not str(argv[i + 1]).startswith("--") and \
                            name not in ("quiet", "verbose", "dry-run", "cleanup", "csv-agents"):
                        opts[name] = str(argv[i + 1])
                        i += 1
                    else:
                        opts[name] = True
                elif plan is None:
                    plan = a
                i += 1
            for need in ("listen", "expect", "secret-file"):
                if need not in opts:
                    err(cname, f"nfstorm run lacks --{need}")
            listen = str(opts.get("listen", ""))
            mm = re.match(r"^(.*):(\d+)$", listen)
            if mm:
                coord_port = int(mm.group(2))
                ports = [p.get("containerPort") for p in c.get("ports") or []]
                if ports and coord_port not in ports:
                    err(cname, f"listens on {coord_port} but declares containerPort {ports}")
            elif "listen" in opts:
                err(cname, f"--listen {listen} is not ADDR:PORT")
            if "secret-file" in opts:
                secret_file(cname, opts["secret-file"], c["_mounts"], ns)
            if plan is None:
                err(cname, "nfstorm run names no plan file")
            else:
                m, v, rel = on_volume(plan, c["_mounts"])
                if m is None or "configMap" not in v:
                    err(cname, f"plan {plan} is not on a ConfigMap volume")
                else:
                    items = v["configMap"].get("items")
                    names = [it.get("path") for it in items] if items else \
                        sorted(keys.get(("ConfigMap", ns, v["configMap"].get("name")), ()))
                    if rel not in names:
                        err(cname, f"plan {plan}: the ConfigMap volume holds {', '.join(names)}, not {rel}")
            for out in ("json", "html", "csv", "timeseries", "output"):
                if out in opts:
                    m, v, rel = on_volume(str(opts[out]), c["_mounts"])
                    if m is None or "persistentVolumeClaim" not in v or m.get("readOnly"):
                        err(cname, f"--{out} {opts[out]} is not on a writable persistent volume")

    # The agents.
    if "agent" not in pods:
        err(d, "no agent workload (app.kubernetes.io/component: agent)")
    else:
        w, ns, tmpl, _ = pods["agent"]
        agent_labels = get(tmpl, "metadata.labels")
        if tmpl["spec"].get("enableServiceLinks") is not False:
            err(w, "agent pods need enableServiceLinks: false (Service variables could "
                   "look like NFSTORM_AGENT_* ones)")
        for c in tmpl["spec"]["containers"]:
            cname = f"{w} container {c['name']}"
            env = c["_env"]
            for name in env:
                if name.startswith("NFSTORM_AGENT_"):
                    opt = name[len("NFSTORM_AGENT_"):].lower().replace("_", "-")
                    if opt not in agent_opts:
                        err(cname, f"{name}: nfstorm-agent has no option --{opt}")
            for need in ("NFSTORM_AGENT_COORDINATOR", "NFSTORM_AGENT_SECRET_FILE", "NFSTORM_AGENT_ALLOW"):
                if need not in env:
                    err(cname, f"{need} is not set")
            if env.get("NFSTORM_AGENT_SECRET_FILE"):
                secret_file(cname, env["NFSTORM_AGENT_SECRET_FILE"], c["_mounts"], ns)
            for a in (env.get("NFSTORM_AGENT_ALLOW") or "").split(","):
                if not a:
                    continue
                m, v, rel = on_volume(a, c["_mounts"])
                if m is None or "persistentVolumeClaim" not in v or m.get("readOnly"):
                    err(cname, f"allowed directory {a} is not on a writable persistent volume")
            target = env.get("NFSTORM_AGENT_COORDINATOR") or ""
            mm = re.match(r"^([a-z0-9.-]+):(\d+)$", target)
            if not mm:
                err(cname, f"NFSTORM_AGENT_COORDINATOR {target!r} is not HOST:PORT")
            else:
                parts = mm.group(1).split(".")
                svc_ns = parts[1] if len(parts) > 1 else ns
                if len(parts) > 2 and parts[2:] not in (["svc"], ["svc", "cluster", "local"]):
                    err(cname, f"NFSTORM_AGENT_COORDINATOR {target}: not a Service's cluster name")
                svc = find("Service", svc_ns, parts[0])
                if svc is None:
                    err(cname, f"NFSTORM_AGENT_COORDINATOR {target}: no Service {parts[0]} in {svc_ns}")
                else:
                    port = int(mm.group(2))
                    sp = [p for p in get(svc, "spec.ports") or [] if p.get("port") == port]
                    if not sp:
                        err(cname, f"NFSTORM_AGENT_COORDINATOR {target}: Service {parts[0]} has no port {port}")
                    elif coord_port is not None and sp[0].get("targetPort", port) != coord_port:
                        err(cname, f"Service {parts[0]} port {port} goes to {sp[0].get('targetPort')}, "
                                   f"the coordinator listens on {coord_port}")
                    if coord_labels is not None and not subset(get(svc, "spec.selector"), coord_labels):
                        err(cname, f"Service {parts[0]} does not select the coordinator's pods")
                    if agent_labels is not None and subset(get(svc, "spec.selector"), agent_labels):
                        err(cname, f"Service {parts[0]} selects the agents' pods too")

    for w, o in objs:
        if o["kind"] != "NetworkPolicy":
            continue
        if coord_labels is not None and not subset(get(o, "spec.podSelector.matchLabels"), coord_labels):
            err(w, "NetworkPolicy does not select the coordinator's pods")
        for rule in get(o, "spec.ingress") or []:
            froms = [f.get("podSelector", {}).get("matchLabels") for f in rule.get("from") or []]
            if agent_labels is not None and froms and not any(subset(f, agent_labels) for f in froms):
                err(w, "NetworkPolicy does not admit the agents' pods")
            ports = [p.get("port") for p in rule.get("ports") or []]
            if coord_port is not None and ports and coord_port not in ports:
                err(w, f"NetworkPolicy admits ports {ports}, the coordinator listens on {coord_port}")

    for e in errors:
        print(e)
    if errors:
        return 1
    print(f"k8s: {len(objs)} objects ok (image {', '.join(sorted(images))}, coordinator port {coord_port})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
