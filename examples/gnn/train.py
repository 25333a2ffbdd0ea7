"""Two-layer GCN and GAT on the Planetoid citation graphs, with spk's PyTorch ops and with PyG.

    python examples/gnn/train.py --dataset cora --model gcn gat --impl spk pyg --device cuda
    python examples/gnn/train.py --graph rmat20.mtx --features 128 --hidden 128 --heads 4 --epochs 20   # timing only

Data: ../shared/matrices (or $SPK_MATRICES): <name>.mtx (the graph), <name>_labels.tsv (label and the
standard Planetoid split), <name>_features.mtx[.gz] (bag-of-words; PubMed has none there, so it gets
random features, and its accuracy means nothing). --graph FILE takes any Matrix Market graph (e.g. from
`spk gen rmat:scale=20,edge_factor=16 -o rmat20.mtx`) with random features and labels, for timing.

Per model and implementation it prints test accuracy (at the best validation epoch), the median time per
training epoch (forward + backward + step), the median time of the evaluation's forward pass (no gradients), and
the peak device memory above the inputs: PyTorch's allocator
peak plus, for both, the peak of what spk holds itself (spk.device_memory_use; zero for PyG). spk's GAT runs
as one FusedMM per layer (scores, leaky ReLU, softmax and aggregation in one pass), so it never holds a
per-edge attention array; PyG's GATConv does. With --repeats N each implementation trains N times with N seeds,
alternating with the other: the table gives the mean accuracy and its range, and the fastest run's times. With
--cuda-graph both replay a training step captured in a CUDA graph: small graphs' epochs are bound by the host's
Python and launches, and the replay leaves each implementation's device work.

Features: spk's models take sparse features (Cora's and CiteSeer's bag-of-words, about 1% non-zero) as a sparse
matrix: the first layer's dropout falls on the stored values (dense dropout's distribution: zeros stay zero) and its
product is an SpMM. PyG's layers take them dense. --dense-features gives spk's models the dense ones too; then, with
dense features, both implementations draw the same weights and dropout masks from one seed.
"""
import argparse
import os
import pathlib
import time

import numpy as np
import scipy.sparse as sp
import torch
import torch.nn.functional as F

import spk
import spk.torch_ops as spk_ops


# --- data -----------------------------------------------------------------------------------


def matrix_dir():
    env = os.environ.get("SPK_MATRICES")
    return pathlib.Path(env) if env else pathlib.Path(__file__).resolve().parents[3] / "shared" / "matrices"


def load_planetoid(name, rng):
    root = matrix_dir()
    adj = spk.read_mtx(root / f"{name}.mtx").to_scipy()
    labels, split = [], []
    for line in open(root / f"{name}_labels.tsv"):
        if line.startswith("#") or not line.strip():
            continue
        _, label, part = line.split("\t")
        labels.append(int(label))
        split.append(part.strip())
    labels, split = np.array(labels), np.array(split)
    features = None
    for suffix in (".mtx", ".mtx.gz"):
        if (root / f"{name}_features{suffix}").exists():
            features = spk.read_mtx(root / f"{name}_features{suffix}", dtype="float32").to_scipy().toarray()
    if features is None:
        print(f"{name}: no features in {root}, using random 500-dim features (accuracy is not meaningful)")
        features = rng.standard_normal((adj.shape[0], 500)).astype(np.float32)
    features /= np.maximum(features.sum(1, keepdims=True), 1)  # row-normalised, as in Kipf & Welling
    return adj, features, labels, split


def load_graph(path, width, rng, classes=16):
    adj = spk.read_mtx(path, dtype="float32").to_scipy()
    n = adj.shape[0]
    split = rng.choice(["train", "val", "test"], size=n, p=[0.1, 0.1, 0.8])
    return adj, rng.standard_normal((n, width)).astype(np.float32), rng.integers(0, classes, n), split


def symmetric_with_self_loops(adj):
    a = ((adj + adj.T) != 0).astype(np.float32)
    a = a.tolil()
    a.setdiag(1)
    return a.tocsr()


def to_spk(m, device):
    """A scipy CSR as a spk.csr_array of torch tensors on `device` (validated once, here)."""
    m = m.tocsr()
    m.sort_indices()
    t = lambda x, dt: torch.from_numpy(np.ascontiguousarray(x)).to(device=device, dtype=dt)
    return spk.csr_array((t(m.data, torch.float32), t(m.indices, torch.int32), t(m.indptr, torch.int32)), shape=m.shape)


# --- spk models -----------------------------------------------------------------------------


def glorot_(t):
    """Uniform in ±sqrt(6 / (fan_in + fan_out)) over the last two dimensions, as PyG initialises its weights and GATConv's
    attention vectors (torch's xavier_uniform_ counts a (1, heads, d) tensor's fans as heads x d and d: a narrower start)."""
    bound = (6.0 / (t.size(-2) + t.size(-1))) ** 0.5
    with torch.no_grad():
        t.uniform_(-bound, bound)


def glorot_weight(d_in, d_out):
    """A d_in x d_out weight with the values PyG's d_out x d_in Linear weight gets from the same seed. PyG draws that
    weight twice (when the Linear is made, and again when its conv resets it): drawing twice too keeps the random
    streams of both implementations in step, so that with dense features they start from the same weights and drop
    the same entries."""
    w = torch.empty(d_out, d_in)
    glorot_(w)
    glorot_(w)
    return torch.nn.Parameter(w.t().contiguous())


def dropout_matmul(x, weight, p, training):
    """dropout(x) @ weight. Sparse features (a spk.csr_array) are multiplied as they are stored, by one SpMM, and
    their dropout falls on the stored values: dense dropout's distribution (zeros stay zero) at nnz's cost."""
    if isinstance(x, spk.csr_array):
        return spk_ops.spmm(x, weight, values=F.dropout(x.data, p, training))
    return F.dropout(x, p, training) @ weight


class SpkGCNLayer(torch.nn.Module):
    """Â (dropout(X) W) + b, as GCNConv after a dropout: the bias after the aggregation."""

    def __init__(self, a_hat, d_in, d_out, dropout):
        super().__init__()
        self.a_hat, self.dropout = a_hat, dropout
        self.weight = glorot_weight(d_in, d_out)
        self.bias = torch.nn.Parameter(torch.zeros(d_out))

    def forward(self, x):
        return spk_ops.spmm(self.a_hat, dropout_matmul(x, self.weight, self.dropout, self.training)) + self.bias


class SpkGCN(torch.nn.Module):
    def __init__(self, a_hat, d_in, hidden, classes, dropout=0.5):
        super().__init__()
        self.conv1 = SpkGCNLayer(a_hat, d_in, hidden, dropout)
        self.conv2 = SpkGCNLayer(a_hat, hidden, classes, dropout)

    def forward(self, x):
        return self.conv2(F.relu(self.conv1(x)))


class SpkGATLayer(torch.nn.Module):
    """GAT attention in one FusedMM: h = dropout(x) W, e_ij = leaky_relu(a_dst.h_i + a_src.h_j), softmax over row i,
    out_i = sum_j alpha_ij h_j per head."""

    def __init__(self, adj, d_in, d_out, heads, dropout, concat=True, edge_terms=False):
        super().__init__()
        self.adj, self.heads, self.d_out, self.dropout, self.concat, self.edge_terms = adj, heads, d_out, dropout, concat, edge_terms
        self.weight = glorot_weight(d_in, heads * d_out)
        self.att_src = torch.nn.Parameter(torch.empty(1, heads, d_out))
        self.att_dst = torch.nn.Parameter(torch.empty(1, heads, d_out))
        self.bias = torch.nn.Parameter(torch.zeros(heads * d_out if concat else d_out))
        glorot_(self.att_src)
        glorot_(self.att_dst)

    def forward(self, x):
        h = dropout_matmul(x, self.weight, self.dropout, self.training)
        hv = h.view(-1, self.heads, self.d_out)
        score_dst = (hv * self.att_dst).sum(-1).contiguous()  # rows x heads: the target's term
        score_src = (hv * self.att_src).sum(-1).contiguous()  # cols x heads: the source's term
        out = spk_ops.fusedmm(self.adj, score_dst, score_src, h, score="add", edge="leaky_relu(0.2)", normalize="softmax",
                              aggregate="sum", heads=self.heads, backward_edge_terms=self.edge_terms)
        if not self.concat:
            out = out.view(-1, self.heads, self.d_out).mean(1)
        return out + self.bias


class SpkGAT(torch.nn.Module):
    def __init__(self, adj, d_in, hidden, classes, heads=8, dropout=0.6, edge_terms=False):
        super().__init__()
        self.conv1 = SpkGATLayer(adj, d_in, hidden, heads, dropout, edge_terms=edge_terms)
        self.conv2 = SpkGATLayer(adj, hidden * heads, classes, 1, dropout, concat=False, edge_terms=edge_terms)

    def forward(self, x):
        return self.conv2(F.elu(self.conv1(x)))


# --- PyG models -----------------------------------------------------------------------------


def pyg_models():
    from torch_geometric.nn import GATConv, GCNConv

    class PygGCN(torch.nn.Module):
        def __init__(self, edge_index, d_in, hidden, classes, dropout=0.5):
            super().__init__()
            self.edge_index, self.dropout = edge_index, dropout
            self.conv1 = GCNConv(d_in, hidden, cached=True)
            self.conv2 = GCNConv(hidden, classes, cached=True)

        def forward(self, x):
            x = F.dropout(x, self.dropout, self.training)
            x = F.relu(self.conv1(x, self.edge_index))
            x = F.dropout(x, self.dropout, self.training)
            return self.conv2(x, self.edge_index)

    class PygGAT(torch.nn.Module):
        def __init__(self, edge_index, d_in, hidden, classes, heads=8, dropout=0.6):
            super().__init__()
            self.edge_index, self.dropout = edge_index, dropout
            self.conv1 = GATConv(d_in, hidden, heads=heads)
            self.conv2 = GATConv(hidden * heads, classes, heads=1, concat=False)

        def forward(self, x):
            x = F.dropout(x, self.dropout, self.training)
            x = F.elu(self.conv1(x, self.edge_index))
            x = F.dropout(x, self.dropout, self.training)
            return self.conv2(x, self.edge_index)

    return PygGCN, PygGAT


# --- training -------------------------------------------------------------------------------


def build(model, impl, adj, d_in, classes, device, width, edge_terms=False):
    """width: the hidden layer's width (a GAT splits it over its heads). edge_terms: spk's GAT keeps its
    backward's edge terms (backward_edge_terms)."""
    hidden, heads = width
    if impl == "spk":
        if model == "gcn":
            deg = np.asarray(adj.sum(1)).ravel()
            d = sp.diags(1 / np.sqrt(deg))
            return SpkGCN(to_spk(d @ adj @ d, device), d_in, hidden, classes)
        return SpkGAT(to_spk(adj, device), d_in, hidden // heads, classes, heads, edge_terms=edge_terms)
    PygGCN, PygGAT = pyg_models()
    coo = adj.tocoo()
    no_loops = coo.row != coo.col  # PyG adds the self loops itself
    edge_index = torch.tensor(np.stack([coo.col[no_loops], coo.row[no_loops]]), dtype=torch.int64, device=device)
    if model == "gcn":
        return PygGCN(edge_index, d_in, hidden, classes)
    return PygGAT(edge_index, d_in, hidden // heads, classes, heads)


def warm_up(device):
    """Creates the cuBLAS and cuBLASLt workspaces (tens of MiB from PyTorch's allocator, kept for the
    process) before any measurement, so that they count against neither implementation's peak."""
    lin = torch.nn.Linear(8, 8).to(device)
    lin(torch.ones(4, 8, device=device, requires_grad=True)).sum().backward()


def profile_steps(model, x, y, mask, opt, steps, device):
    """Prints where `steps` training steps spend their time (torch.profiler: operators and kernels, sorted by device
    time on CUDA, by CPU time otherwise), after the training loop has warmed everything up."""
    from torch.profiler import ProfilerActivity, profile

    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device.type == "cuda" else [])
    model.train()
    with profile(activities=activities) as prof:
        for _ in range(steps):
            opt.zero_grad()
            F.cross_entropy(model(x)[mask], y[mask]).backward()
            opt.step()
        if device.type == "cuda":
            torch.cuda.synchronize()
    key = "self_cuda_time_total" if device.type == "cuda" else "self_cpu_time_total"
    print(prof.key_averages().table(sort_by=key, row_limit=25), flush=True)


def graphed_step(model, x, y, train, opt):
    """A training step captured once in a CUDA graph (--cuda-graph), for replay every epoch: the host's per-step work
    (Python, launches) goes, each implementation's device work stays. Three eager steps warm up first on the capture
    stream (spk keeps its plans per stream: the capture must find them made), as PyTorch's whole-network capture does;
    the optimizer must be capturable."""
    def step():
        F.cross_entropy(model(x)[train], y[train]).backward()
        opt.step()

    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            opt.zero_grad(set_to_none=True)
            step()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    opt.zero_grad(set_to_none=True)  # the capture's backward makes the gradients, in the graph's memory
    with torch.cuda.graph(graph, stream=stream):
        step()

    def replay():
        graph.replay()

    replay.inputs = (x, y, train)  # each replay reads these tensors' memory: it must outlive the graph
    return replay


def run(model_name, impl, adj, features, labels, split, epochs, device, width, profile=0, edge_terms=False, sparse_features=False,
        seed=0, cuda_graph=False):
    """sparse_features: spk's models take the features as a sparse matrix (PyG's layers take them dense). cuda_graph:
    each epoch replays a captured training step (graphed_step)."""
    torch.manual_seed(seed)
    x = to_spk(sp.csr_matrix(features), device) if impl == "spk" and sparse_features else torch.from_numpy(features).to(device)
    y = torch.from_numpy(labels).to(device)
    masks = {s: torch.from_numpy(split == s).to(device) for s in ("train", "val", "test")}
    classes = int(labels.max()) + 1
    model = build(model_name, impl, adj, x.shape[1], classes, device, width, edge_terms).to(device)
    cuda = device.type == "cuda"
    graphed = cuda_graph and cuda
    opt = torch.optim.Adam(model.parameters(), lr=0.005 if model_name == "gat" else 0.01, weight_decay=5e-4, capturable=graphed)
    if cuda:  # PyTorch's allocator and, for spk, the memory spk holds itself (which PyTorch does not see)
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        base = torch.cuda.memory_allocated()
        spk.reset_device_memory_peak(device.index or 0)
        spk_base = spk.device_memory_use(device.index or 0)[0]
    replay = None
    if graphed:  # an index, not a mask: a mask's nonzero waits for the device, which a capture cannot
        model.train()
        replay = graphed_step(model, x, y, masks["train"].nonzero().squeeze(1), opt)
    times, inference, best_val, test_at_best = [], [], -1.0, 0.0
    for _ in range(epochs):
        model.train()
        t0 = time.perf_counter()
        if replay is not None:
            replay()
        else:
            opt.zero_grad()
            out = model(x)
            loss = F.cross_entropy(out[masks["train"]], y[masks["train"]])
            loss.backward()
            opt.step()
        if cuda:
            torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
        model.eval()
        with torch.no_grad():
            t0 = time.perf_counter()
            logits = model(x)
            if cuda:
                torch.cuda.synchronize()
            inference.append(time.perf_counter() - t0)
            pred = logits.argmax(1)
            acc = {s: (pred[m] == y[m]).float().mean().item() if m.any() else 0.0 for s, m in masks.items()}
        if acc["val"] > best_val:
            best_val, test_at_best = acc["val"], acc["test"]
    if profile:
        profile_steps(model, x, y, masks["train"], opt, profile, device)
    peak = float("nan")
    if cuda:
        peak = (torch.cuda.max_memory_allocated() - base + spk.device_memory_use(device.index or 0)[1] - spk_base) / 2**20
    median_ms = lambda t: float(np.median(t[1:] if len(t) > 1 else t)) * 1e3
    return test_at_best, median_ms(times), median_ms(inference), peak


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dataset", default="cora", choices=["cora", "citeseer", "pubmed"])
    p.add_argument("--graph", help="a Matrix Market graph instead of a Planetoid dataset (random features and labels)")
    p.add_argument("--features", type=int, default=128, help="feature width for --graph")
    p.add_argument("--model", nargs="+", default=["gcn", "gat"], choices=["gcn", "gat"])
    p.add_argument("--impl", nargs="+", default=["spk", "pyg"], choices=["spk", "pyg"])
    p.add_argument("--epochs", type=int, default=200)
    p.add_argument("--hidden", type=int, help="hidden width (default 16 for the GCN, 64 for the GAT: 8 heads of 8)")
    p.add_argument("--heads", type=int, default=8, help="the GAT's attention heads in its first layer")
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--profile", type=int, default=0, metavar="STEPS",
                   help="after training, profile this many training steps and print the top operators and kernels")
    p.add_argument("--repeats", type=int, default=1,
                   help="train each model this many times (seeds --seed, --seed + 1, ...), the implementations alternating, and "
                        "report the mean test accuracy (and its range), the fastest run's times (host-bound epochs on small "
                        "graphs vary from run to run) and the largest peak")
    p.add_argument("--seed", type=int, default=0, help="torch's seed of the first run: the weights and the dropout")
    p.add_argument("--dense-features", action="store_true",
                   help="spk's models take sparse features (at most 10%% non-zero: Cora's and CiteSeer's) dense, as PyG's do")
    p.add_argument("--cuda-graph", action="store_true",
                   help="both implementations capture a training step in a CUDA graph (after 3 eager warm-up steps) and "
                        "replay it every epoch: their device work without the host's per-step overhead (GCN: PyG's GATConv "
                        "filters self loops through a boolean mask every forward, a device wait no capture allows)")
    p.add_argument("--edge-terms", action="store_true",
                   help="spk's GAT keeps 2 values per edge and head during its backward pass (faster, more memory)")
    args = p.parse_args()
    rng = np.random.default_rng(0)
    device = torch.device(args.device)
    if args.graph:
        adj, features, labels, split = load_graph(args.graph, args.features, rng)
        name = pathlib.Path(args.graph).name
    else:
        adj, features, labels, split = load_planetoid(args.dataset, rng)
        name = args.dataset
    adj = symmetric_with_self_loops(adj)
    keep = labels >= 0  # CiteSeer's 15 featureless nodes have label -1: never trained or scored
    split = np.where(keep, split, "none")
    labels = np.where(keep, labels, 0)
    density = np.count_nonzero(features) / max(features.size, 1)
    sparse_features = density <= 0.1 and not args.dense_features
    print(f"{name}: {adj.shape[0]} nodes, {adj.nnz} entries (with self loops), {features.shape[1]} features "
          f"({density:.1%} non-zero{', sparse for spk' if sparse_features else ''}), device {device}")
    warm_up(device)
    print("| graph | model | impl | test acc | ms / epoch | inference ms | peak MiB |")
    print("|---|---|---|---|---|---|---|")
    for model in args.model:
        width = (args.hidden or (16 if model == "gcn" else 64), args.heads)
        results = {impl: [] for impl in args.impl}
        for r in range(max(1, args.repeats)):
            for impl in args.impl:
                results[impl].append(run(model, impl, adj, features, labels, split, args.epochs, device, width, args.profile,
                                         args.edge_terms, sparse_features, args.seed + r, args.cuda_graph))
        for impl in args.impl:
            acc, ms, inference_ms, peak = zip(*results[impl])
            accuracy = f"{np.mean(acc):.3f}" + (f" ({min(acc):.3f}-{max(acc):.3f})" if len(acc) > 1 else "")
            label = impl + (" (edge terms)" if args.edge_terms and impl == "spk" and model == "gat" else "")
            label += " (CUDA graph)" if args.cuda_graph and device.type == "cuda" else ""
            print(f"| {name} | {model} | {label} | {accuracy} | {min(ms):.2f} | {min(inference_ms):.2f} | {max(peak):.0f} |", flush=True)


if __name__ == "__main__":
    main()
