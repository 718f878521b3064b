#!/usr/bin/env python3
"""Op output shapes from torch's own shape propagation: an oracle for rules that infer them.

Kineto records each op's inputs (Input Dims, Input type, Concrete Inputs, Input Strides), never
its outputs. This script reads every Kineto trace (*.pt.trace.json.gz) under the folders given,
collects every distinct signature of its cpu_op events (name, Input Dims, Input type, Concrete
Inputs and Input Strides as the trace writes them), rebuilds each call on meta tensors and runs
it through torch.ops, recording the output shapes, strides and dtypes, or why it could not:

  rebuilding  a tensor argument is a meta tensor of the recorded dims, strides and dtype; a
              TensorList one a list of them (the trace records no dtype for list elements: the
              call runs twice, with float32 and with bfloat16 elements, and an output whose dtype
              differs between the two has dtype null); a Scalar is parsed from Concrete Inputs
              (True/False, integers, decimals); a ScalarList likewise element by element; integer
              codes of a ScalarType, Layout or MemoryFormat argument are mapped to torch's values
              (DTYPE_CODES below, checked against torch at the start); a Device argument is 'meta'.
  overloads   the trace names the op without its overload (aten::add): every schema of the op with
              as many arguments as were recorded and types the recorded ones fit is a candidate,
              those needing fewer assumptions first; the first that runs is the one recorded.
  assumptions an argument the trace leaves blank (type '') is None where the schema allows it;
              a blank one the schema does not let be None (a string such as gelu's approximate,
              a Generator) takes the schema's default, and the record says so; pin_memory=True
              becomes False (meta memory cannot be pinned).
  fallback    a call that meta tensors cannot run is tried again under FakeTensorMode on a fake
              'cuda' device (torch's fake tensors: meta kernels plus decompositions and fake
              impls); the record says which ran it.

Unresolved calls carry a reason code: not-aten-op (another namespace, an annotation, an autograd
node, a kernel), no-matching-overload, unrecorded-argument (a required argument the trace does
not record, e.g. einsum's equation), data-dependent-output (the output's shape or value depends
on tensor data: nonzero, item, masked indexing), no-meta-kernel, meta-error (torch's own checks
refused the rebuilt call; the detail says why).

Where a capture has torch's execution trace beside it (NAME.et.json.gz, workloads'
--execution-trace), each of its ops is matched to the ET node of the same rf_id (Kineto's
'Record function id') and the ET's recorded outputs are compared with the oracle's: agreement
counts per capture go in the output's et_crosscheck, with the disagreements listed.

torch is imported only once the work starts: --help works on a machine without torch.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import sys
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

EXAMPLES = """\
examples:
  python3 workloads/shape_oracle.py                                    # the repo's fixtures
  python3 workloads/shape_oracle.py --traces test/fixtures/traces /tmp/caps --out /tmp/shapes.json.gz
"""

# c10::ScalarType's integer codes, as Concrete Inputs writes a dtype argument (c10/core/ScalarType.h)
DTYPE_CODES = {
    0: "uint8", 1: "int8", 2: "int16", 3: "int32", 4: "int64", 5: "float16", 6: "float32", 7: "float64",
    8: "complex32", 9: "complex64", 10: "complex128", 11: "bool", 12: "qint8", 13: "quint8", 14: "qint32",
    15: "bfloat16", 16: "quint4x2", 17: "quint2x4", 23: "float8_e5m2", 24: "float8_e4m3fn",
    25: "float8_e5m2fnuz", 26: "float8_e4m3fnuz", 27: "uint16", 28: "uint32", 29: "uint64",
    44: "float8_e8m0fnu", 45: "float4_e2m1fn_x2",
}
# c10::MemoryFormat's codes
MEMORY_FORMAT_CODES = {0: "contiguous_format", 1: "preserve_format", 2: "channels_last", 3: "channels_last3d"}
# the C++ type names Kineto writes as a tensor's Input type (caffe2::TypeMeta::name), and the ET's Tensor(...)
TENSOR_TYPE_NAMES = {
    "float": "float32", "double": "float64", "c10::Half": "float16", "c10::BFloat16": "bfloat16",
    "long int": "int64", "int": "int32", "short int": "int16", "signed char": "int8", "unsigned char": "uint8",
    "bool": "bool", "long unsigned int": "uint64", "unsigned int": "uint32", "short unsigned int": "uint16",
    "c10::complex<float>": "complex64", "c10::complex<double>": "complex128", "c10::complex<c10::Half>": "complex32",
    "c10::Float8_e4m3fn": "float8_e4m3fn", "c10::Float8_e5m2": "float8_e5m2",
    "c10::Float8_e4m3fnuz": "float8_e4m3fnuz", "c10::Float8_e5m2fnuz": "float8_e5m2fnuz",
    "c10::Float8_e8m0fnu": "float8_e8m0fnu", "c10::Float4_e2m1fn_x2": "float4_e2m1fn_x2",
    "c10::qint8": "qint8", "c10::quint8": "quint8", "c10::qint32": "qint32",
}
INTS = {"int", "SymInt"}
FLOATS = {"float", "SymFloat"}
BOOLS = {"bool", "SymBool"}
SCALARS = {"Scalar", "number"}
# argument types a trace never records (Concrete Inputs holds numbers, booleans and lists of them)
UNRECORDED = {"str", "Generator", "Dimname", "Device", "Stream", "Storage", "Any", "QScheme"}

REASONS = {
    "not-aten-op": "not an aten op: another namespace, an annotation, an autograd node or a kernel",
    "no-matching-overload": "no schema of the op takes the recorded arguments",
    "unrecorded-argument": "a required argument the trace does not record (a string, a Dimname)",
    "data-dependent-output": "the output's shape or value depends on tensor data, which meta tensors do not hold",
    "no-meta-kernel": "neither a meta kernel nor a fake-tensor implementation exists",
    "meta-error": "torch's checks refused the rebuilt call (see detail)",
}


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="shape_oracle.py", description=__doc__.strip(),
                                epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--traces", nargs="+", metavar="DIR", default=[os.path.join(ROOT, "test/fixtures/traces")],
                   help="folders searched (recursively) for *.pt.trace.json.gz; each trace is named by its path "
                   "under the folder it was found in (default: test/fixtures/traces)")
    p.add_argument("--out", default=os.path.join(ROOT, "test/fixtures/shapes/op-output-shapes.json.gz"),
                   metavar="PATH", help="the gzipped JSON written (default: test/fixtures/shapes/op-output-shapes.json.gz)")
    p.add_argument("--reuse", metavar="PATH",
                   help="an earlier output of this script (same torch): its results are taken for the signatures "
                   "it holds, and only new signatures are run")
    p.add_argument("--verbose", action="store_true", help="print each unresolved signature")
    return p.parse_args()


# ------------------------------------------------------------------------------------- reading


def read_json_gz(path: str) -> Any:
    with gzip.open(path, "rb") as f:
        return json.loads(f.read())


def find_traces(folders: list[str]) -> list[tuple[str, str]]:
    """(name, path) of every *.pt.trace.json.gz under the folders, name relative to its folder."""
    out = []
    for folder in folders:
        for dirpath, _, files in os.walk(folder):
            for f in files:
                if f.endswith(".pt.trace.json.gz"):
                    path = os.path.join(dirpath, f)
                    out.append((os.path.relpath(path, folder).replace(os.sep, "/"), path))
    return sorted(out)


def trace_events(doc: Any) -> list[dict]:
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def signature_of(e: dict) -> tuple:
    a = e.get("args") or {}
    return (e["name"], a.get("Input Dims"), a.get("Input type"), a.get("Concrete Inputs"), a.get("Input Strides"))


def sig_key(sig: tuple) -> str:
    return json.dumps(sig, separators=(",", ":"))


# ------------------------------------------------------------------------------------- rebuilding


class Mismatch(Exception):
    """The recorded argument does not fit the schema's."""


class Unrecorded(Exception):
    """A required argument the trace does not record."""


USE_DEFAULT = object()


def has_default(arg: Any) -> bool:
    f = getattr(arg, "has_default_value", None)
    return bool(f()) if callable(f) else arg.default_value is not None


def parse_scalar(text: str) -> Any:
    if text in ("True", "False"):
        return text == "True"
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        raise Mismatch(f"unparsed scalar {text!r}") from None


def parse_scalar_list(text: str) -> list:
    t = text.strip()
    if not (t.startswith("[") and t.endswith("]")):
        raise Mismatch(f"unparsed list {text!r}")
    body = t[1:-1].strip()
    return [] if not body else [parse_scalar(x.strip()) for x in body.split(",")]


def norm_type(s: str) -> tuple[bool, str, str | None]:
    """A schema argument type's text as (optional, base, list element): 'Optional[List[int]]' -> (True, 'List', 'int')."""
    opt = False
    if s.startswith("Optional[") and s.endswith("]"):
        opt, s = True, s[9:-1]
    elif s.endswith("?"):
        opt, s = True, s[:-1]
    m = re.fullmatch(r"List\[(.+)\]", s) or re.fullmatch(r"(.+?)\[\d*\]", s)
    if m:
        return opt, "List", m.group(1)
    return opt, s, None


class Rebuilder:
    def __init__(self, torch: Any, device: str, list_dtype: Any):
        self.torch = torch
        self.device = device
        self.list_dtype = list_dtype
        self.dtypes = {code: getattr(torch, name) for code, name in DTYPE_CODES.items() if hasattr(torch, name)}
        self.memory_formats = {code: getattr(torch, name) for code, name in MEMORY_FORMAT_CODES.items() if hasattr(torch, name)}
        self.tensor_dtypes = {k: getattr(torch, v) for k, v in TENSOR_TYPE_NAMES.items() if hasattr(torch, v)}

    def tensor(self, dims: Any, strides: Any, dtype: Any) -> Any:
        torch = self.torch
        if not isinstance(dims, list) or not all(isinstance(d, int) for d in dims):
            raise Mismatch(f"tensor dims {dims!r}")
        if isinstance(strides, list) and len(strides) == len(dims) and all(isinstance(s, int) for s in strides):
            return torch.empty_strided(dims, strides, dtype=dtype, device=self.device)
        return torch.empty(dims, dtype=dtype, device=self.device)

    def convert(self, rec: tuple, arg: Any, notes: list[str]) -> Any:
        """The recorded argument (type, dims, concrete, strides) as a value for the schema argument."""
        typ, dims, conc, strides = rec
        opt, base, elem = norm_type(str(arg.type))
        name = arg.name
        if base == "Device" or (base == "List" and elem == "Device"):
            return self.device  # never recorded; the call stays on meta (or the fake device)
        if typ == "":
            if opt:
                return None
            if base in UNRECORDED:
                if has_default(arg):
                    notes.append(f"{name} ({base}) not recorded: the schema's default used")
                    return USE_DEFAULT
                raise Unrecorded(f"{name} ({base})")
            raise Mismatch(f"{name}: blank for a required {base}")
        if typ in ("TensorList", "GenericList"):
            if base != "List" or norm_type(elem)[1] != "Tensor":
                raise Mismatch(f"{name}: a tensor list for {arg.type}")
            if not isinstance(dims, list):
                raise Mismatch(f"{name}: list dims {dims!r}")
            st = strides if isinstance(strides, list) and len(strides) == len(dims) else [None] * len(dims)
            return [self.tensor(d, s, self.list_dtype) for d, s in zip(dims, st)]
        if typ == "ScalarList":
            if base != "List":
                raise Mismatch(f"{name}: a list for {arg.type}")
            values = parse_scalar_list(conc)
            e = norm_type(elem)[1]
            if e in INTS and not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
                raise Mismatch(f"{name}: non-integers for {arg.type}")
            if e in BOOLS and not all(isinstance(v, bool) for v in values):
                raise Mismatch(f"{name}: non-booleans for {arg.type}")
            if e in FLOATS:
                values = [float(v) for v in values]
            if e not in INTS | FLOATS | BOOLS | SCALARS:
                raise Mismatch(f"{name}: a scalar list for {arg.type}")
            return values
        if typ == "Scalar":
            v = parse_scalar(conc)
            is_int = isinstance(v, int) and not isinstance(v, bool)
            if base in INTS and is_int:
                return v
            if base in FLOATS and (is_int or isinstance(v, float)):
                return float(v)
            if base in BOOLS and isinstance(v, bool):
                return v
            if base in SCALARS:
                return v
            if base == "ScalarType" and is_int:
                if v not in self.dtypes:
                    raise Mismatch(f"{name}: unknown dtype code {v}")
                return self.dtypes[v]
            if base == "Layout" and is_int:
                if v != 0:
                    raise Mismatch(f"{name}: layout {v} is not strided")
                return self.torch.strided
            if base == "MemoryFormat" and is_int and v in self.memory_formats:
                return self.memory_formats[v]
            if base == "List" and is_int and norm_type(elem)[1] in INTS:
                notes.append(f"{name}: one integer for {arg.type}")
                return [v]
            raise Mismatch(f"{name}: scalar {conc!r} for {arg.type}")
        dtype = self.tensor_dtypes.get(typ)
        if dtype is None:
            raise Mismatch(f"{name}: unknown input type {typ!r}")
        if base != "Tensor":
            raise Mismatch(f"{name}: a tensor for {arg.type}")
        return self.tensor(dims, strides, dtype)

    def call(self, schema: Any, recs: list[tuple]) -> tuple[Any, list[str]]:
        """Build the call for one schema (raises Mismatch/Unrecorded) and return (a thunk, notes)."""
        if len(schema.arguments) != len(recs):
            raise Mismatch("arity")
        notes: list[str] = []
        pos: list[Any] = []
        kw: dict[str, Any] = {}
        by_name = False  # once an argument is left to its default, the ones after it go by name
        for rec, arg in zip(recs, schema.arguments):
            v = self.convert(rec, arg, notes)
            if v is USE_DEFAULT:
                by_name = True
                continue
            if arg.name == "pin_memory" and v is True:
                notes.append("pin_memory=True run as False")
                v = False
            if arg.kwarg_only or by_name:
                kw[arg.name] = v
            else:
                pos.append(v)
        ns, opname = schema.name.split("::", 1)
        try:
            overload = getattr(getattr(getattr(self.torch.ops, ns), opname), schema.overload_name or "default")
        except (AttributeError, RuntimeError) as e:  # TorchScript-only overloads (aten::add.int) are no dispatcher op
            raise Mismatch(f"no torch.ops overload {schema.overload_name!r}") from e
        return (lambda: overload(*pos, **kw)), notes


# ------------------------------------------------------------------------------------- outputs


def describe(torch: Any, v: Any) -> Any:
    if isinstance(v, torch.Tensor):
        return {"shape": list(v.shape), "strides": list(v.stride()), "dtype": str(v.dtype).replace("torch.", "")}
    if v is None:
        return {"none": True}
    if isinstance(v, (list, tuple)):
        return {"list": [describe(torch, x) for x in v]}
    if isinstance(v, bool):
        return {"scalar": "bool"}
    if isinstance(v, int):
        return {"scalar": "int", "value": v}
    if isinstance(v, float):
        return {"scalar": "float"}
    return {"other": type(v).__name__}


def outputs_of(torch: Any, schema: Any, result: Any) -> list:
    if len(schema.returns) == 1:
        return [describe(torch, result)]
    if len(schema.returns) == 0:
        return []
    return [describe(torch, x) for x in result]


def merge_dtypes(a: Any, b: Any) -> Any:
    """The outputs of the float32-element run, with dtype null where the bfloat16 run's differs."""
    if isinstance(a, dict) and isinstance(b, dict):
        if "shape" in a and "shape" in b:
            out = dict(a)
            if a["dtype"] != b["dtype"]:
                out["dtype"] = None
            if a["shape"] != b["shape"]:
                out["shape"] = None
            return out
        if "list" in a and "list" in b and len(a["list"]) == len(b["list"]):
            return {"list": [merge_dtypes(x, y) for x, y in zip(a["list"], b["list"])]}
        return a
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [merge_dtypes(x, y) for x, y in zip(a, b)]
    return a


def first_line(e: BaseException) -> str:
    text = f"{type(e).__name__}: {e}".strip()
    return text.splitlines()[0][:300]


DATA_DEPENDENT = re.compile(r"data.dependent|DataDependent|DynamicOutputShape|cannot be called on meta tensors|"
                            r"item\(\) on meta|_local_scalar_dense", re.I)
NO_KERNEL = re.compile(r"no fake impl or Meta kernel|Could not run .* with arguments from the 'Meta' backend|"
                       r"NotImplementedError|UnsupportedOperatorException|not implemented for 'Meta'", re.I)


class Oracle:
    def __init__(self, torch: Any):
        self.torch = torch
        from torch._subclasses.fake_tensor import FakeTensorMode

        try:
            self.fake_mode = FakeTensorMode(allow_non_fake_inputs=False)
        except TypeError:  # torch < 2.0 (Debian's python3-torch 1.13): the keyword came later, False was its only mode
            self.fake_mode = FakeTensorMode()
        self.schemas: dict[str, list] = {}

    def schemas_of(self, name: str) -> list:
        if name not in self.schemas:
            try:
                self.schemas[name] = list(self.torch._C._jit_get_schemas_for_operator(name))
            except RuntimeError:
                self.schemas[name] = []
        return self.schemas[name]

    def run(self, schema: Any, recs: list[tuple], device: str, list_dtype: Any) -> tuple[list, list[str]]:
        rb = Rebuilder(self.torch, device, list_dtype)
        if device == "meta":
            thunk, notes = rb.call(schema, recs)
            return outputs_of(self.torch, schema, thunk()), notes
        with self.fake_mode:
            thunk, notes = rb.call(schema, recs)
            return outputs_of(self.torch, schema, thunk()), notes

    def resolve(self, sig: tuple) -> dict:
        torch = self.torch
        name, dims, types, conc, strides = sig
        if not name.startswith("aten::"):
            return {"status": "unresolved", "reason": "not-aten-op"}
        schemas = self.schemas_of(name)
        if not schemas:
            return {"status": "unresolved", "reason": "not-aten-op", "detail": "no schema registered under this name"}
        if not isinstance(types, list) or not isinstance(dims, list) or len(dims) != len(types):
            return {"status": "unresolved", "reason": "no-matching-overload", "detail": "no Input Dims/Input type recorded"}
        n = len(types)
        conc = conc if isinstance(conc, list) and len(conc) == n else [""] * n
        strides = strides if isinstance(strides, list) and len(strides) == n else [None] * n
        recs = [(types[i], dims[i], conc[i], strides[i]) for i in range(n)]
        has_list = any(t in ("TensorList", "GenericList") for t in types)

        # candidates: schemas the recorded arguments fit, fewest assumptions first (stable)
        candidates, why_not = [], []
        probe = Rebuilder(torch, "meta", torch.float32)
        for s in schemas:
            try:
                _, notes = probe.call(s, recs)
                candidates.append((len(notes), s))
            except Unrecorded as e:
                why_not.append(("unrecorded-argument", f"{s.name}.{s.overload_name}: {e}"))
            except Exception as e:  # noqa: BLE001 (Mismatch, or torch refusing a value while building)
                why_not.append(("no-matching-overload", f"{s.overload_name or 'default'}: {e}"))
        candidates.sort(key=lambda c: c[0])
        if not candidates:
            unrec = [d for r, d in why_not if r == "unrecorded-argument"]
            if unrec:
                return {"status": "unresolved", "reason": "unrecorded-argument", "detail": unrec[0][:300]}
            return {"status": "unresolved", "reason": "no-matching-overload",
                    "detail": "; ".join(d for _, d in why_not)[:300]}

        errors = []
        for _, s in candidates:
            for device in ("meta", "cuda"):
                try:
                    outputs, notes = self.run(s, recs, device, torch.float32)
                except Exception as e:  # noqa: BLE001 (torch raises many kinds; each is classified below)
                    errors.append(first_line(e))
                    continue
                if has_list:
                    try:
                        other, _ = self.run(s, recs, device, torch.bfloat16)
                        outputs = merge_dtypes(outputs, other)
                    except Exception:  # noqa: BLE001
                        outputs = merge_dtypes(outputs, None)
                        notes = notes + ["tensor-list elements' dtype not recorded: float32 assumed"]
                rec = {"status": "resolved", "overload": s.overload_name or "default",
                       "via": "meta" if device == "meta" else "fake-cuda", "outputs": outputs}
                if len(candidates) > 1:
                    rec["candidates"] = len(candidates)
                if notes:
                    rec["assumed"] = notes
                return rec
        text = " | ".join(errors)
        if DATA_DEPENDENT.search(text):
            reason = "data-dependent-output"
        elif all(NO_KERNEL.search(e) for e in errors):
            reason = "no-meta-kernel"
        else:
            reason = "meta-error"
        return {"status": "unresolved", "reason": reason, "detail": errors[0] if reason != "data-dependent-output"
                else next(e for e in errors if DATA_DEPENDENT.search(e))}


# ------------------------------------------------------------------------------------- the ET


def et_rf_id(node: dict) -> int | None:
    for a in node.get("attrs") or []:
        if a.get("name") == "rf_id":
            return a.get("value")
    return None


def et_attr(node: dict, key: str) -> Any:
    for a in node.get("attrs") or []:
        if a.get("name") == key:
            return a.get("value")
    return None


def split_top(s: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in s:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur:
        parts.append(cur)
    return parts


def et_value(typ: str, shape: Any) -> Any:
    """One ET output as describe() writes a value: {shape, dtype}, {list}, {none} or {scalar}."""
    if typ.startswith("Tensor(") and typ.endswith(")"):
        inner = typ[7:-1]
        if inner in ("", "undefined", "nullptr (uninitialized)"):
            return {"none": True}
        return {"shape": shape, "dtype": TENSOR_TYPE_NAMES.get(inner, inner)}
    if typ.startswith("GenericList[") and typ.endswith("]"):
        items = split_top(typ[12:-1])
        shapes = shape if isinstance(shape, list) and len(shape) == len(items) else [None] * len(items)
        return {"list": [et_value(t, s) for t, s in zip(items, shapes)]}
    if typ == "None":
        return {"none": True}
    return {"scalar": typ}


def same_output(meta: Any, et: Any) -> bool:
    if "shape" in meta:
        if "none" in et:
            return False
        if "shape" not in et:
            return False
        ok = meta["shape"] is None or meta["shape"] == et["shape"]
        ok = ok and (meta["dtype"] is None or meta["dtype"] == et["dtype"])
        return ok
    if "list" in meta:
        return "list" in et and len(et["list"]) == len(meta["list"]) and all(
            same_output(a, b) for a, b in zip(meta["list"], et["list"]))
    if "none" in meta:
        return "none" in et or ("shape" in et and et["shape"] == [])
    if "scalar" in meta:
        return "scalar" in et
    return True


def crosscheck(trace_events_: list[dict], et_doc: dict, results: dict[str, dict]) -> dict:
    nodes = et_doc.get("nodes") or []
    by_rf: dict[int, dict] = {}
    dup = 0
    for nd in nodes:
        rf = et_rf_id(nd)
        if rf:
            if rf in by_rf:
                dup += 1
            by_rf[rf] = nd
    kin = [e for e in trace_events_ if e.get("cat") in ("cpu_op", "user_annotation")]
    kin_rf = [e for e in kin if (e.get("args") or {}).get("Record function id")]
    matched = [e for e in kin_rf if e["args"]["Record function id"] in by_rf]
    name_mismatch = [e for e in matched if by_rf[e["args"]["Record function id"]]["name"] != e["name"]]
    kin_ids = {e["args"]["Record function id"] for e in kin_rf}
    et_steps = sorted(nd["name"] for nd in nodes if nd["name"].startswith("ProfilerStep#"))
    kin_steps = sorted(e["name"] for e in kin if e["name"].startswith("ProfilerStep#"))
    out: dict[str, Any] = {
        "kineto_events": len(kin), "kineto_with_rf_id": len(kin_rf), "et_nodes": len(nodes),
        "et_nodes_with_rf_id": len(by_rf), "et_duplicate_rf_ids": dup, "matched": len(matched),
        "name_mismatches": len(name_mismatch),
        "et_rf_ids_not_in_kineto": sum(1 for rf in by_rf if rf not in kin_ids),
        "kineto_steps": kin_steps, "et_steps": et_steps,
        "ops_compared": 0, "outputs_agree": 0, "outputs_disagree": 0, "unresolved": 0,
        "overload_agree": 0, "overload_disagree": 0, "disagreements": [],
    }
    for e in matched:
        if e.get("cat") != "cpu_op" or not e["name"].startswith("aten::"):
            continue
        res = results.get(sig_key(signature_of(e)))
        if res is None:
            continue
        nd = by_rf[e["args"]["Record function id"]]
        if res["status"] != "resolved":
            out["unresolved"] += 1
            continue
        out["ops_compared"] += 1
        o = nd.get("outputs") or {}
        types, shapes = o.get("types") or [], o.get("shapes") or []
        et_outs = [et_value(t, shapes[i] if i < len(shapes) else None) for i, t in enumerate(types)]
        meta_outs = res["outputs"]
        ok = len(et_outs) == len(meta_outs) and all(same_output(m, x) for m, x in zip(meta_outs, et_outs))
        if ok:
            out["outputs_agree"] += 1
        else:
            out["outputs_disagree"] += 1
            if len(out["disagreements"]) < 40:
                out["disagreements"].append({"name": e["name"], "overload": res["overload"],
                                             "input_dims": e["args"].get("Input Dims"),
                                             "meta": meta_outs, "et": et_outs})
        schema = et_attr(nd, "op_schema") or ""
        m = re.match(r"^[\w:]+?(?:\.(\w+))?\(", schema)
        if m:
            if (m.group(1) or "default") == res["overload"]:
                out["overload_agree"] += 1
            else:
                out["overload_disagree"] += 1
    return out


# ------------------------------------------------------------------------------------- main


def check_codes(torch: Any) -> list[str]:
    """DTYPE_CODES against torch: torch.ops takes a dtype as its integer code, so empty(dtype=code) must give it."""
    bad = []
    for code, name in DTYPE_CODES.items():
        if not hasattr(torch, name) or name.startswith("q") or name in ("quint4x2", "quint2x4"):
            continue
        try:
            got = torch.ops.aten.empty.memory_format([1], dtype=code, device="meta").dtype
        except Exception as e:  # noqa: BLE001
            bad.append(f"{code}: {first_line(e)}")
            continue
        if got != getattr(torch, name):
            bad.append(f"{code}: torch says {got}, the table {name}")
    return bad


def gzip_json(path: str, doc: Any) -> None:
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    data = json.dumps(doc, separators=(",", ":"), sort_keys=False).encode("utf-8")
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as gz:
        gz.write(data)


def main() -> None:
    args = parse_args()
    import torch

    t0 = time.perf_counter()
    bad_codes = check_codes(torch)
    if bad_codes:
        print("dtype codes that disagree with torch (left out):", bad_codes, flush=True)
        for b in bad_codes:
            DTYPE_CODES.pop(int(b.split(":")[0]), None)
    traces = find_traces(args.traces)
    if not traces:
        sys.exit(f"shape_oracle.py: no *.pt.trace.json.gz under {args.traces}")
    sigs: dict[str, dict] = {}
    events_by_trace: dict[str, list[dict]] = {}
    ets: dict[str, str] = {}
    for idx, (name, path) in enumerate(traces):
        evs = trace_events(read_json_gz(path))
        et_path = path[: -len(".pt.trace.json.gz")] + ".et.json.gz"
        if os.path.exists(et_path):
            ets[name] = et_path
            events_by_trace[name] = evs
        for e in evs:
            if e.get("cat") != "cpu_op" or not isinstance(e.get("name"), str):
                continue
            sig = signature_of(e)
            k = sig_key(sig)
            s = sigs.get(k)
            if s is None:
                s = sigs[k] = {"sig": sig, "count": 0, "traces": set()}
            s["count"] += 1
            s["traces"].add(idx)
    print(f"{len(traces)} traces, {len(sigs)} distinct cpu_op signatures ({time.perf_counter() - t0:.1f} s)", flush=True)

    oracle = Oracle(torch)
    results: dict[str, dict] = {}
    reused = 0
    if args.reuse:
        prev = read_json_gz(args.reuse)
        if prev.get("torch") != torch.__version__:
            sys.exit(f"shape_oracle.py: --reuse {args.reuse} was made with torch {prev.get('torch')}, this is {torch.__version__}")
        result_keys = ("status", "overload", "via", "outputs", "candidates", "assumed", "reason", "detail")
        for r in prev["signatures"]:
            k = sig_key((r["name"], r["input_dims"], r["input_type"], r["concrete_inputs"], r.get("input_strides")))
            if k in sigs:
                results[k] = {f: r[f] for f in result_keys if f in r}
                reused += 1
    for k in sorted(sigs):
        if k in results:
            continue
        try:
            results[k] = oracle.resolve(sigs[k]["sig"])
        except Exception as e:  # noqa: BLE001 (one odd signature must not cost the rest)
            results[k] = {"status": "unresolved", "reason": "meta-error", "detail": "oracle: " + first_line(e)}
    print(f"resolved in {time.perf_counter() - t0:.1f} s ({reused} reused from --reuse)", flush=True)

    records = []
    for k in sorted(sigs):
        name, dims, types, conc, strides = sigs[k]["sig"]
        rec: dict[str, Any] = {"name": name, "input_dims": dims, "input_type": types, "concrete_inputs": conc}
        if strides is not None:
            rec["input_strides"] = strides
        rec.update(results[k])
        rec["count"] = sigs[k]["count"]
        rec["traces"] = sorted(sigs[k]["traces"])
        records.append(rec)

    summary: dict[str, Any] = {"signatures": len(records), "resolved": 0, "unresolved": {},
                               "aten_signatures": 0, "via_fake": 0, "with_assumptions": 0, "dtype_unknown": 0}
    for r in records:
        if r["name"].startswith("aten::"):
            summary["aten_signatures"] += 1
        if r["status"] == "resolved":
            summary["resolved"] += 1
            summary["via_fake"] += r["via"] != "meta"
            summary["with_assumptions"] += "assumed" in r
            summary["dtype_unknown"] += '"dtype": null' in json.dumps(r["outputs"])
        else:
            summary["unresolved"][r["reason"]] = summary["unresolved"].get(r["reason"], 0) + 1
    summary["aten_resolved_share"] = round(summary["resolved"] / max(1, summary["aten_signatures"]), 4)

    et_check = {}
    for name, et_path in sorted(ets.items()):
        try:
            et_doc = read_json_gz(et_path)
        except ValueError as e:
            et_check[name] = {"error": f"the ET is not JSON: {first_line(e)}"}
            print(f"ET {name}: not JSON ({first_line(e)})", flush=True)
            continue
        try:
            et_check[name] = crosscheck(events_by_trace[name], et_doc, results)
        except Exception as e:  # noqa: BLE001
            et_check[name] = {"error": "oracle: " + first_line(e)}
            print(f"ET {name}: cross-check failed ({first_line(e)})", flush=True)
            continue
        c = et_check[name]
        print(f"ET {name}: rf_id {c['matched']}/{c['kineto_with_rf_id']} Kineto events matched "
              f"({c['et_nodes_with_rf_id']} ET nodes with rf_id, {c['name_mismatches']} name mismatches); "
              f"outputs agree {c['outputs_agree']}/{c['ops_compared']}, {c['unresolved']} unresolved; "
              f"overload agree {c['overload_agree']}/{c['overload_agree'] + c['overload_disagree']}", flush=True)

    unresolved_by_name: dict[str, dict[str, int]] = {}
    for r in records:
        if r["status"] != "resolved" and r["name"].startswith("aten::"):
            unresolved_by_name.setdefault(r["name"], {}).setdefault(r["reason"], 0)
            unresolved_by_name[r["name"]][r["reason"]] += 1
    doc = {
        "schema": "kinetoscope op-output-shapes 1",
        "made_by": "workloads/shape_oracle.py",
        "torch": torch.__version__,
        "traces": [name for name, _ in traces],
        "dtype_codes": {str(k): v for k, v in DTYPE_CODES.items()},
        "memory_format_codes": {str(k): v for k, v in MEMORY_FORMAT_CODES.items()},
        "reasons": REASONS,
        "summary": summary,
        "unresolved_aten_ops": unresolved_by_name,
        "et_crosscheck": et_check,
        "signatures": records,
    }
    gzip_json(args.out, doc)
    print(json.dumps(summary, indent=1))
    if args.verbose:
        for r in records:
            if r["status"] != "resolved" and r["name"].startswith("aten::"):
                print(r["reason"], r["name"], r.get("detail", ""))
    print(f"wrote {args.out} ({os.path.getsize(args.out)} bytes) in {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
