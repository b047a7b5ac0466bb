#!/usr/bin/env python3
"""mknodes.py -- write the synthetic GPU node types as hwloc 2 XML.

Usage: mknodes.py [OUTDIR]   (default: the directory of this script)

The node types are those of docs (test/data/nodes/README.md): gpu4, dgx,
frontier, gh200.  Written by hand rather than exported by lstopo because no
machine here has the GPUs; the output is checked with
`lstopo-no-graphics -i FILE --whole-io` and `hwloc-info`.  The GPU
interconnect is a distances matrix over the GPU OS devices, as hwloc's NVML
and RSMI backends export it: name NVLinkBandwidth or XGMIBandwidth, kind
FROM_OS | MEANS_BANDWIDTH, values in MB/s, 0 where two GPUs have no direct
link (the diagonal too).
"""
import os
import sys

KIND_FROM_OS, KIND_MEANS_BANDWIDTH = 1, 8


def cpuset(bits):
    """hwloc bitmap string: 32-bit words, most significant first."""
    if not bits:
        return "0x0"
    top = max(bits) // 32
    words = [0] * (top + 1)
    for b in bits:
        words[b // 32] |= 1 << (b % 32)
    return ",".join("0x%08x" % w for w in reversed(words))


class Gen:
    def __init__(self):
        self.gp = 0
        self.out = []

    def next_gp(self):
        self.gp += 1
        return self.gp

    def line(self, depth, text):
        self.out.append("  " * depth + text)


def sets(cpus, numas):
    cs, ns = cpuset(cpus), cpuset(numas)
    return ('cpuset="%s" complete_cpuset="%s" nodeset="%s" complete_nodeset="%s"'
            % (cs, cs, ns, ns))


def write_node(path, desc):
    """desc: dict with packages (list of dict), links (name, pairs->MB/s)."""
    g = Gen()
    ncpu = sum(len(n["cores"]) for p in desc["packages"] for n in p["numas"])
    allcpus = list(range(ncpu))
    allnumas = sorted(m["os"] for p in desc["packages"] for n in p["numas"]
                      for m in [n] + n.get("extra", []))
    gpus = {}  # GPU index -> gp_index of the OS device the matrix is over
    g.line(0, '<?xml version="1.0" encoding="UTF-8"?>')
    g.line(0, '<!DOCTYPE topology SYSTEM "hwloc2.dtd">')
    g.line(0, '<topology version="2.0">')
    cs, ns = cpuset(allcpus), cpuset(allnumas)
    g.line(1, '<object type="Machine" os_index="0" %s allowed_cpuset="%s" '
              'allowed_nodeset="%s" gp_index="%d">' % (sets(allcpus, allnumas), cs, ns,
                                                      g.next_gp()))
    g.line(2, '<info name="Backend" value="Linux"/>')
    g.line(2, '<info name="SyntheticNode" value="clustermap %s"/>' % desc["name"])
    for pk, pkg in enumerate(desc["packages"]):
        pcpus = [c for n in pkg["numas"] for c in n["cores"]]
        pnumas = sorted(m["os"] for n in pkg["numas"] for m in [n] + n.get("extra", []))
        g.line(2, '<object type="Package" os_index="%d" %s gp_index="%d">'
               % (pk, sets(pcpus, pnumas), g.next_gp()))
        g.line(3, '<info name="CPUModel" value="%s"/>' % desc["cpu_model"])
        # A NUMA node covering the whole package hangs from it; smaller ones
        # get a Group, as Linux hwloc builds for NUMA nodes inside a package.
        whole = len(pkg["numas"]) == 1
        for numa in pkg["numas"]:
            d = 3
            mems = [numa] + numa.get("extra", [])
            mset = sorted(m["os"] for m in mems)
            if not whole:
                g.line(3, '<object type="Group" %s gp_index="%d" kind="1000" '
                          'subkind="0" dont_merge="0">'
                       % (sets(numa["cores"], mset), g.next_gp()))
                d = 4
            for m in mems:
                g.line(d, '<object type="NUMANode" os_index="%d" %s gp_index="%d" '
                          'local_memory="%d"%s>'
                       % (m["os"], sets(numa["cores"], [m["os"]]), g.next_gp(),
                          m["mem"], ' subtype="%s"' % m["subtype"] if "subtype" in m
                          else ""))
                g.line(d + 1, '<page_type size="4096" count="%d"/>' % (m["mem"] // 4096))
                g.line(d, '</object>')
            for k, l3 in enumerate(numa.get("l3", [None])):
                cd = d
                cores = numa["cores"] if l3 is None else l3
                if l3 is not None:
                    g.line(d, '<object type="L3Cache" %s gp_index="%d" cache_size="%d" '
                              'depth="3" cache_linesize="64" cache_associativity="16" '
                              'cache_type="0">' % (sets(l3, [numa["os"]]), g.next_gp(),
                                                   32 << 20))
                    cd = d + 1
                for c in cores:
                    g.line(cd, '<object type="Core" os_index="%d" %s gp_index="%d">'
                           % (c, sets([c], [numa["os"]]), g.next_gp()))
                    g.line(cd + 1, '<object type="PU" os_index="%d" %s gp_index="%d"/>'
                           % (c, sets([c], [numa["os"]]), g.next_gp()))
                    g.line(cd, '</object>')
                if l3 is not None:
                    write_pci(g, d + 1, numa.get("l3_pci", {}).get(k, []), gpus)
                    g.line(d, '</object>')
            write_pci(g, d, numa["pci"], gpus)
            if not whole:
                g.line(3, '</object>')
        g.line(2, '</object>')
    g.line(1, '</object>')
    link = desc.get("links")
    if link:
        n = len(gpus)
        vals = [0] * (n * n)
        for (a, b), bw in link["pairs"].items():
            vals[a * n + b] = vals[b * n + a] = bw
        g.line(1, '<distances2 type="OSDev" nbobjs="%d" kind="%d" name="%s" '
                  'indexing="gp">' % (n, KIND_FROM_OS | KIND_MEANS_BANDWIDTH,
                                      link["name"]))
        # "length" is the length of the text, as hwloc writes it.
        idx = " ".join(str(gpus[k]) for k in range(n))
        g.line(2, '<indexes length="%d">%s</indexes>' % (len(idx), idx))
        for r in range(n):
            row = " ".join(str(v) for v in vals[r * n:(r + 1) * n])
            g.line(2, '<u64values length="%d">%s</u64values>' % (len(row), row))
        g.line(1, '</distances2>')
    g.line(0, '</topology>')
    with open(path, "w") as f:
        f.write("\n".join(g.out) + "\n")


def write_pci(g, d, devs, gpus):
    """One host bridge per PCI domain of @devs, the devices below it."""
    for dom in sorted({x["bus"].split(":")[0] for x in devs}):
        write_bridge(g, d, [x for x in devs if x["bus"].startswith(dom + ":")], gpus)


def write_bridge(g, d, devs, gpus):
    dom = devs[0]["bus"].split(":")[0]
    buses = [int(x["bus"].split(":")[1], 16) for x in devs]
    lo, hi = min(buses), max(buses)
    g.line(d, '<object type="Bridge" gp_index="%d" bridge_type="0-1" depth="0" '
              'bridge_pci="%s:[%02x-%02x]">' % (g.next_gp(), dom, lo, hi))
    for x in sorted(devs, key=lambda x: x["bus"]):
        g.line(d + 1, '<object type="PCIDev" gp_index="%d" pci_busid="%s" '
                      'pci_type="%s" pci_link_speed="%s">'
               % (g.next_gp(), x["bus"], x["pci_type"], x.get("speed", "31.507692")))
        for os_ in x["osdevs"]:
            gp = g.next_gp()
            g.line(d + 2, '<object type="OSDev" gp_index="%d" name="%s" subtype="%s" '
                          'osdev_type="%d">' % (gp, os_["name"], os_["subtype"],
                                                os_["type"]))
            for k, v in os_.get("info", []):
                g.line(d + 3, '<info name="%s" value="%s"/>' % (k, v))
            g.line(d + 2, '</object>')
            if os_.get("gpu") is not None and os_.get("matrix"):
                gpus[os_["gpu"]] = gp
        g.line(d + 1, '</object>')
    g.line(d, '</object>')


OSDEV_GPU, OSDEV_NETWORK, OSDEV_OPENFABRICS, OSDEV_COPROC = 1, 2, 3, 5


def nvidia_gpu(k, bus, model, device_id):
    return {"bus": bus, "pci_type": "0302 [10de:%04x] [10de:1450] a1" % device_id,
            "osdevs": [
                {"name": "cuda%d" % k, "subtype": "CUDA", "type": OSDEV_COPROC,
                 "info": [("CoProcType", "CUDA"), ("Backend", "CUDA"),
                          ("GPUVendor", "NVIDIA Corporation"), ("GPUModel", model)]},
                {"name": "nvml%d" % k, "subtype": "NVML", "type": OSDEV_GPU,
                 "gpu": k, "matrix": True,
                 "info": [("Backend", "NVML"), ("GPUVendor", "NVIDIA Corporation"),
                          ("GPUModel", model)]}]}


def amd_gcd(k, bus):
    return {"bus": bus, "pci_type": "0380 [1002:7408] [1002:0b0c] 01",
            "osdevs": [
                {"name": "rsmi%d" % k, "subtype": "RSMI", "type": OSDEV_GPU,
                 "gpu": k, "matrix": True,
                 "info": [("Backend", "RSMI"), ("GPUVendor", "AMD"),
                          ("GPUModel", "AMD Instinct MI250X")]}]}


def mlx(k, bus):
    return {"bus": bus, "pci_type": "0207 [15b3:101b] [15b3:0007] 00",
            "osdevs": [
                {"name": "mlx5_%d" % k, "subtype": "OpenFabrics",
                 "type": OSDEV_OPENFABRICS,
                 "info": [("NodeGUID", "b8ce:f603:00a0:%04x" % k)]},
                {"name": "ib%d" % k, "subtype": "Network", "type": OSDEV_NETWORK,
                 "info": [("Address", "00:00:10:87:fe:80:00:00:00:00:00:00:b8:ce:"
                                      "f6:03:00:a0:%02x:%02x" % (k >> 8, k & 255)),
                          ("Port", "1")]}]}


def cassini(k, bus):
    return {"bus": bus, "pci_type": "0200 [17db:0501] [17db:0001] 02",
            "osdevs": [
                {"name": "cxi%d" % k, "subtype": "OpenFabrics",
                 "type": OSDEV_OPENFABRICS, "info": []},
                {"name": "hsn%d" % k, "subtype": "Network", "type": OSDEV_NETWORK,
                 "info": [("Address", "02:00:00:00:00:%02x" % k)]}]}


GiB = 1 << 30


def r(a, n):
    return list(range(a, a + n))


def gpu4():
    pk = []
    for p in range(2):
        pci = [nvidia_gpu(2 * p, "0000:%02x:00.0" % (0x07 + 0x80 * p + 0), "Tesla V100-SXM2-32GB", 0x1db5),
               nvidia_gpu(2 * p + 1, "0000:%02x:00.0" % (0x0b + 0x80 * p), "Tesla V100-SXM2-32GB", 0x1db5),
               mlx(p, "0000:%02x:00.0" % (0x0c + 0x80 * p))]
        pk.append({"numas": [{"os": p, "cores": r(8 * p, 8), "mem": 64 * GiB, "pci": pci}]})
    pairs = {(0, 1): 100000, (2, 3): 100000}
    return {"name": "gpu4", "cpu_model": "Synthetic 8-core CPU", "packages": pk,
            "links": {"name": "NVLinkBandwidth", "pairs": pairs}}


def dgx():
    gbus = [0x07, 0x0f, 0x47, 0x4e, 0x87, 0x90, 0xb7, 0xbd]
    nbus = [0x0c, 0x4b, 0x8b, 0xba]
    pk = []
    for p in range(2):
        numas = []
        for q in range(2):
            k = 2 * p + q
            pci = [nvidia_gpu(2 * k, "0000:%02x:00.0" % gbus[2 * k], "NVIDIA A100-SXM4-80GB", 0x20b2),
                   nvidia_gpu(2 * k + 1, "0000:%02x:00.0" % gbus[2 * k + 1], "NVIDIA A100-SXM4-80GB", 0x20b2),
                   mlx(k, "0000:%02x:00.0" % nbus[k])]
            numas.append({"os": k, "cores": r(16 * k, 16), "mem": 128 * GiB, "pci": pci})
        pk.append({"numas": numas})
    pairs = {(a, b): 300000 for a in range(8) for b in range(a + 1, 8)}
    return {"name": "dgx", "cpu_model": "Synthetic 32-core CPU", "packages": pk,
            "links": {"name": "NVLinkBandwidth", "pairs": pairs}}


def frontier():
    # NUMA k holds two GCDs (one MI250X) and one NIC; GCD and NIC indexes
    # follow PCI bus order, which is not NUMA order.
    per_numa = {3: (0, 1, 0), 1: (2, 3, 1), 0: (4, 5, 2), 2: (6, 7, 3)}
    gcd_bus = [0xc1, 0xc6, 0xc9, 0xce, 0xd1, 0xd6, 0xd9, 0xde]
    nic_bus = [0xc5, 0xcd, 0xd5, 0xdd]
    gcd_l3 = {0: 6, 1: 7, 2: 2, 3: 3, 4: 0, 5: 1, 6: 4, 7: 5}  # GCD -> L3 (8 cores)
    numas = []
    for q in range(4):
        a, b, nic = per_numa[q]
        assert {gcd_l3[a], gcd_l3[b]} == {2 * q, 2 * q + 1}
        # A GCD's locality is its L3 (8 cores), the NIC's the NUMA node.
        l3_pci = {gcd_l3[a] - 2 * q: [amd_gcd(a, "0000:%02x:00.0" % gcd_bus[a])],
                  gcd_l3[b] - 2 * q: [amd_gcd(b, "0000:%02x:00.0" % gcd_bus[b])]}
        pci = [cassini(nic, "0000:%02x:00.0" % nic_bus[nic])]
        numas.append({"os": q, "cores": r(16 * q, 16), "mem": 128 * GiB, "pci": pci,
                      "l3": [r(16 * q, 8), r(16 * q + 8, 8)], "l3_pci": l3_pci})
    pairs = {(0, 1): 200000, (2, 3): 200000, (4, 5): 200000, (6, 7): 200000,
             (0, 2): 100000, (1, 3): 100000, (4, 6): 100000, (5, 7): 100000,
             (0, 6): 50000, (1, 7): 50000, (2, 4): 50000, (3, 5): 50000}
    return {"name": "frontier", "cpu_model": "Synthetic 64-core CPU",
            "packages": [{"numas": numas}],
            "links": {"name": "XGMIBandwidth", "pairs": pairs}}


def gh200():
    pk = []
    for p in range(4):
        # One PCI domain per device, as on Grace: NIC k in domain 16k, GPU k
        # in 16k + 9, so bus order is NIC 0, GPU 0, NIC 1, GPU 1, ...
        pci = [nvidia_gpu(p, "%04x:01:00.0" % (16 * p + 9), "NVIDIA GH200 480GB", 0x2342),
               mlx(p, "%04x:01:00.0" % (16 * p))]
        pk.append({"numas": [{"os": p, "cores": r(72 * p, 72), "mem": 120 * GiB,
                              "pci": pci,
                              "extra": [{"os": 4 + p, "mem": 96 * GiB,
                                         "subtype": "GPUMemory"}]}]})
    pairs = {(a, b): 150000 for a in range(4) for b in range(a + 1, 4)}
    return {"name": "gh200", "cpu_model": "Synthetic 72-core CPU", "packages": pk,
            "links": {"name": "NVLinkBandwidth", "pairs": pairs}}


def one_numa():
    """A test machine, not a node type: 4 GPUs and 2 NICs of one locality,
    where the nearest NIC is a tie for every GPU."""
    pci = [nvidia_gpu(k, "0000:%02x:00.0" % (0x10 * (k + 1)), "Tesla T4", 0x1eb8)
           for k in range(4)]
    pci += [mlx(0, "0000:18:00.0"), mlx(1, "0000:38:00.0")]
    return {"name": "gpu4-one-numa", "cpu_model": "Synthetic 8-core CPU",
            "packages": [{"numas": [{"os": 0, "cores": r(0, 8), "mem": 64 * GiB,
                                     "pci": pci}]}]}


def gpu2():
    """A test machine, not a node type: 2 packages of 1 core, each with a
    GPU and a NIC, the GPUs an NVLink pair.  Its 2 cores are ones every
    machine has, so a virtual cluster of such nodes binds for real."""
    pk = []
    for p in range(2):
        pci = [nvidia_gpu(p, "0000:%02x:00.0" % (0x07 + 0x80 * p), "Tesla T4", 0x1eb8),
               mlx(p, "0000:%02x:00.0" % (0x0c + 0x80 * p))]
        pk.append({"numas": [{"os": p, "cores": [p], "mem": 16 * GiB, "pci": pci}]})
    return {"name": "gpu2", "cpu_model": "Synthetic 1-core CPU", "packages": pk,
            "links": {"name": "NVLinkBandwidth", "pairs": {(0, 1): 100000}}}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else here
    for f in (gpu4, dgx, frontier, gh200):
        d = f()
        write_node(os.path.join(out, d["name"] + ".xml"), d)
    for f in (one_numa, gpu2):
        d = f()
        write_node(os.path.join(here, "..", "gpu", d["name"] + ".xml"), d)


if __name__ == "__main__":
    main()
