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


def device_call(fun, module: str, batch: bool):
    """call(capsule, rows, stream, device) -> (keep, pointer) for chainsaw._core."""
    if module == "torch":
        import torch
        from torch.utils.dlpack import from_dlpack
        streams = {}

        def call(capsule, rows, stream, device):
            s = streams.get(stream)
            if s is None:
                s = streams[stream] = (torch.cuda.ExternalStream(stream, device=device) if stream
                                       else torch.cuda.default_stream(device))
            with torch.cuda.stream(s):
                x = from_dlpack(capsule)
                if batch:
                    f = fun(x)
                else:
                    f = torch.stack([torch.as_tensor(fun(x[r]), device=x.device).reshape(())
                                     for r in range(rows)])
                if not isinstance(f, torch.Tensor) or f.device != x.device:
                    f = torch.as_tensor(f, device=x.device)
                _check(f, rows)
                f = f.to(torch.float64).contiguous()
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
