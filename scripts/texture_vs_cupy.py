"""cuprum's texture fetches against CuPy's on one GPU: a 13-texel float32 CUDA array sampled by
an ElementwiseKernel at 196 coordinates in every address mode x filter x normalized (border
color 0.75), and a 6x5 array under bilinear filtering, through both libraries with the same
descriptors. Prints, per combination, where the two differ; then CuPy's values for the cases
tests/texture.rs's model disagreed with on an H100 (Border + Linear + unnormalized, 2-D
bilinear), to settle whether the model or cuprum is wrong.

    python3 scripts/texture_vs_cupy.py       # on a GPU machine with CuPy

Exit status 1 where cuprum and CuPy differ anywhere.
"""

import sys

import numpy as np


def run(mod):
    from importlib import import_module

    cp = import_module(mod)
    rt = cp.cuda.runtime
    tx = import_module(mod + ".cuda.texture")
    out = {}
    rng = np.random.default_rng(3)
    data = (rng.random(13, dtype=np.float32) * 8 - 4).astype(np.float32)
    xs = np.concatenate(
        [np.linspace(-3, 16, 191, dtype=np.float32), np.float32([2.601096, 0, 0.5, 12.5, 13])]
    )
    ch = tx.ChannelFormatDescriptor(32, 0, 0, 0, rt.cudaChannelFormatKindFloat)
    arr = tx.CUDAarray(ch, 13)
    arr.copy_from(data)
    res = tx.ResourceDescriptor(rt.cudaResourceTypeArray, cuArr=arr)
    k = cp.ElementwiseKernel("float32 x, U t", "float32 y", "y = tex1D<float>(t, x)", "fetch1")
    for mode in ("Wrap", "Clamp", "Mirror", "Border"):
        for filt in ("Point", "Linear"):
            for norm in (0, 1):
                d = tx.TextureDescriptor(
                    (getattr(rt, "cudaAddressMode" + mode),) * 3,
                    getattr(rt, "cudaFilterMode" + filt),
                    rt.cudaReadModeElementType,
                    normalizedCoords=norm,
                    borderColors=(0.75, 0.0, 0.0, 0.0),
                )
                t = tx.TextureObject(res, d)
                c = xs / 13 if norm else xs
                out[(mode, filt, norm)] = cp.asnumpy(k(cp.asarray(c), t))
    # 2-D linear clamp
    w, h = 6, 5
    d2 = (rng.random((h, w), dtype=np.float32) * 8 - 4).astype(np.float32)
    arr2 = tx.CUDAarray(ch, w, h)
    arr2.copy_from(d2)
    res2 = tx.ResourceDescriptor(rt.cudaResourceTypeArray, cuArr=arr2)
    dd = tx.TextureDescriptor(
        (rt.cudaAddressModeClamp,) * 3, rt.cudaFilterModeLinear, rt.cudaReadModeElementType
    )
    t2 = tx.TextureObject(res2, dd)
    k2 = cp.ElementwiseKernel(
        "float32 x, float32 y, U t", "float32 z", "z = tex2D<float>(t, x, y)", "fetch2"
    )
    px = np.float32([3.8033242, 0.5, 1.25, 2.0])
    py = np.float32([1.4280188, 0.5, 3.75, 2.5])
    out["2d"] = cp.asnumpy(k2(cp.asarray(px), cp.asarray(py), t2))
    return data, xs, out


def main():
    dc, xs, a = run("cupy")
    dr, _, b = run("cuprum")
    assert (dc == dr).all()
    print("data", dc.tolist())
    for key in a:
        diff = np.nonzero(a[key] != b[key])[0]
        print(
            key,
            "differ at",
            len(diff),
            "of",
            len(a[key]),
            [
                (float(xs[i]) if key != "2d" else i, float(a[key][i]), float(b[key][i]))
                for i in diff[:6]
            ],
        )
    print(
        "cupy Border Linear unnorm at 2.601096:",
        a[("Border", "Linear", 0)][-5],
        "cuprum:",
        b[("Border", "Linear", 0)][-5],
    )
    print("cupy 2d:", a["2d"].tolist(), "cuprum 2d:", b["2d"].tolist())
    print("cupy border-linear-unnorm:", a[("Border", "Linear", 0)][:191:10].tolist())
    print("cupy clamp-linear-unnorm:", a[("Clamp", "Linear", 0)][:191:10].tolist())
    sys.exit(int(any((a[k] != b[k]).any() for k in a)))


if __name__ == "__main__":
    main()
