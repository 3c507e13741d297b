"""GPU objectives: the engine's device rows as a PyTorch tensor or a CuPy array (DLPack, no
copy), fun run on the engine's CUDA stream, its values handed back as float64 device memory."""
from __future__ import annotations


class _Rows:
    """A DLPack producer over the capsule chainsaw._core made (for from_dlpack consumers that
    take the protocol rather than a bare capsule)."""

    __slots__ = ("capsule", "device")

    def __init__(self, capsule, device):
        self.capsule = capsule
        self.device = device

    def __dlpack__(self, stream=None):  # the rows are ready on the stream fun runs on
        return self.capsule

    def __dlpack_device__(self):
        return (2, self.device)  # kDLCUDA


def _check(f, rows):
    if tuple(f.shape) != (rows,):
        raise ValueError(f"fun returned an array of shape {tuple(f.shape)} for {rows} rows; "
                         f"expected ({rows},): one fitness per row")


def _torch_values(fun, batch: bool):
    """evaluate(x, rows): fun's values at the rows of tensor x as contiguous float64, checked."""
    import torch

    def evaluate(x, rows):
        if batch:
            f = fun(x)
        else:
            f = torch.stack([torch.as_tensor(fun(x[r]), device=x.device).reshape(())
                             for r in range(rows)])
        if not isinstance(f, torch.Tensor) or f.device != x.device:
            f = torch.as_tensor(f, device=x.device)
        _check(f, rows)
        return f.to(torch.float64).contiguous()
    return evaluate


def device_call(fun, module: str, batch: bool):
    """call(capsule, rows, stream, device) -> (keep, pointer) for chainsaw._core."""
    if module == "torch":
        import torch
        from torch.utils.dlpack import from_dlpack
        streams = {}
        evaluate = _torch_values(fun, batch)

        def call(capsule, rows, stream, device):
            s = streams.get(stream)
            if s is None:
                s = streams[stream] = (torch.cuda.ExternalStream(stream, device=device) if stream
                                       else torch.cuda.default_stream(device))
            with torch.cuda.stream(s):
                f = evaluate(from_dlpack(capsule), rows)
            return f, f.data_ptr()
        return call
    if module == "cupy":
        import cupy
        streams = {}

        def call(capsule, rows, stream, device):
            s = streams.get(stream)
            if s is None:
                s = streams[stream] = cupy.cuda.ExternalStream(stream)
            with cupy.cuda.Device(device), s:
                x = cupy.from_dlpack(_Rows(capsule, device))
                if batch:
                    f = fun(x)
                else:
                    f = cupy.stack([cupy.asarray(fun(x[r])).reshape(()) for r in range(rows)])
                f = cupy.asarray(f)
                _check(f, rows)
                f = cupy.ascontiguousarray(f, dtype=cupy.float64)
            return f, f.data.ptr
        return call
    raise ValueError(f"array_module = {module!r}: torch or cupy on the GPU")


def device_capture(fun, module: str, batch: bool, lower: float, upper: float):
    """capture(rows_capsule, rows, dim, pitch, gene_bytes, fitness_capsule, device) ->
    (keep, graph, input, pitch, output) for chainsaw._core: fun captured into a CUDA graph
    (torch.cuda.graph, its own memory pool). Given the capsules, the graph reads those rows
    and writes their float64 values into the fitness array itself (input = output = 0);
    without, it reads a static input of `rows` rows (row stride `pitch` genes) at `input` and
    leaves its values at `output`. The engine replays it from C++: no Python and no
    per-operation launch cost per evaluation, the point of cuda_graph=True."""
    if module != "torch":
        raise ValueError(f"cuda_graph = True: the objective is captured with PyTorch; "
                         f"array_module = {module!r}")
    import torch
    from torch.utils.dlpack import from_dlpack
    if not hasattr(torch.cuda.CUDAGraph, "raw_cuda_graph"):
        raise ValueError(f"cuda_graph = True needs PyTorch's CUDAGraph.raw_cuda_graph "
                         f"(PyTorch >= 2.6); this is {torch.__version__}")
    evaluate = _torch_values(fun, batch)

    def capture(rows_capsule, rows, dim, pitch, gene_bytes, fitness_capsule, device):
        dtype = torch.float32 if gene_bytes == 4 else torch.float64
        with torch.cuda.device(device):
            if rows_capsule is not None:
                x, fitness = from_dlpack(rows_capsule), from_dlpack(fitness_capsule)
            else:
                # The engine's row stride: fun sees the same layout as without the graph.
                # Warm-up points inside the domain, drawn without PyTorch's generator: a
                # failed capture can leave that generator unusable in this process.
                x = torch.empty((rows, pitch), dtype=dtype, device=f"cuda:{device}")[:, :dim]
                fitness = None
                x.copy_(torch.linspace(lower, upper, dim, dtype=dtype, device=x.device)
                        .expand(rows, dim))
            # PyTorch's rule for capture: run the work a few times on a side stream first
            # (lazy initialisation, torch.compile's first calls, the allocator's cache).
            side = torch.cuda.Stream(device)
            side.wait_stream(torch.cuda.current_stream(device))
            with torch.cuda.stream(side):
                for _ in range(3):
                    evaluate(x, rows)
            torch.cuda.current_stream(device).wait_stream(side)
            graph = torch.cuda.CUDAGraph(keep_graph=True)
            try:
                with torch.cuda.graph(graph):
                    f = evaluate(x, rows)
                    if fitness is not None:
                        fitness.copy_(f)
            except RuntimeError as e:
                try:  # release what the failed capture holds; it may itself refuse
                    graph.reset()
                except RuntimeError:
                    pass
                reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
                raise ValueError(f"cuda_graph = True: fun cannot be captured into a CUDA graph "
                                 f"({reason}); run it without cuda_graph") from None
        if fitness is not None:
            return (graph, x, f, fitness), graph.raw_cuda_graph(), 0, pitch, 0
        return (graph, x, f), graph.raw_cuda_graph(), x.data_ptr(), x.stride(0), f.data_ptr()
    return capture
