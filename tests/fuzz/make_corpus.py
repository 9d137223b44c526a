#!/usr/bin/env python3
"""Writes the fuzz smoke corpus: small valid models (tests/fuzz/corpus/model: 4-byte
.param length, .param text, .bin), their .param files (corpus/param: one parser byte,
then the file) and .bin load plans (corpus/model_bin); the forward target's corpus
(corpus/forward) is the models plus a few that run more layer types and one whose
InnerProduct overflows to inf ahead of a Softmax. Deterministic; rerun to refresh."""
import os, random, struct

here = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(7)

def floats(n):
    return [rng.uniform(-1, 1) for _ in range(n)]

def blob(values, flag=0):  # type-0 weights: 4-byte flag, fp32 values
    return struct.pack('<I', flag) + struct.pack('<%df' % len(values), *values)

def raw(values):  # type-1 weights
    return struct.pack('<%df' % len(values), *values)

models = {}
# conv (3x3, bias, relu) -> pooling -> innerproduct -> softmax
p = """7767517
5 5
Input            data  0 1 data 0=8 1=8 2=4
Convolution      conv  1 1 data c 0=8 1=3 4=1 5=1 6=288 9=1
Pooling          pool  1 1 c p 0=0 1=2 2=2
InnerProduct     fc    1 1 p f 0=5 1=1 2=640
Softmax          prob  1 1 f prob 0=0
"""
models['classifier'] = (p, blob(floats(288)) + raw(floats(8)) + blob(floats(640)) + raw(floats(5)))
# residual block: split / 1x1 conv / batchnorm / relu / eltwise / binaryop / clip
p = """7767517
8 9
Input            data   0 1 data 0=6 1=6 2=16
Split            split  1 2 data a b
Convolution      c1     1 1 a x 0=16 1=1 5=0 6=256
BatchNorm        bn     1 1 x y 0=16
ReLU             relu   1 1 y z
Eltwise          sum    2 1 z b s 0=1
BinaryOp         mul    1 1 s m 0=2 1=1 2=0.5
Clip             clip   1 1 m out 0=-1.0 1=1.0
"""
bn = raw(floats(16)) + raw([rng.uniform(0.5, 1.5) for _ in range(16)]) + raw(floats(16)) + raw(floats(16))
models['residual'] = (p, blob(floats(256)) + bn)
# strided 5x5 convolution with SAME padding and leaky relu, then a 1x1
p = """7767517
3 3
Input            data  0 1 data 0=9 1=7 2=3
Convolution      c5    1 1 data a 0=4 1=5 3=2 4=-233 5=1 6=300 9=2 10=0.1
Convolution      c1    1 1 a out 0=6 1=1 5=1 6=24
"""
models['strided'] = (p, blob(floats(300)) + raw(floats(4)) + blob(floats(24)) + raw(floats(6)))
# fp16 storage flag
def fp16_blob(values):
    return struct.pack('<I', 0x01306B47) + struct.pack('<%de' % len(values), *values) + (b'\0\0' if len(values) % 2 else b'')
p = """7767517
2 2
Input            data  0 1 data 0=5 1=5 2=2
Convolution      conv  1 1 data out 0=3 1=3 4=1 6=54
"""
models['fp16'] = (p, fp16_blob(floats(54)))

for name, (param, bin_bytes) in models.items():
    data = param.encode()
    with open(os.path.join(here, 'corpus', 'model', name), 'wb') as f:
        f.write(struct.pack('<I', len(data)) + data + bin_bytes)
    with open(os.path.join(here, 'corpus', 'param', name), 'wb') as f:
        f.write(b'\0' + data)
with open(os.path.join(here, 'corpus', 'model_bin', 'fp32_and_fp16'), 'wb') as f:
    plan = bytes([2, 5, 0, 0, 3, 0, 1])
    f.write(plan + blob(floats(5)) + raw(floats(3)))

# forward-only seeds (same format as the model corpus)
forward = dict(models)
p = """7767517
3 3
Input            data  0 1 data 0=4 1=1 2=1
InnerProduct     fc    1 1 data f 0=3 1=0 2=12
Softmax          prob  1 1 f prob 0=0
"""
forward['softmax_inf'] = (p, blob([3e38] * 12))  # 4 x 3e38 sums to inf: inf - inf is NaN in exp
p = """7767517
10 11
Input            data   0 1 data 0=7 1=6 2=3
Padding          pad    1 1 data a 0=1 1=2 2=0 3=1 4=0 5=0.5
Pooling          pool   1 1 a b 0=1 1=3 2=2 3=1 5=1
Interp           up     1 1 b c 0=2 1=2.0 2=2.0
LRN              lrn    1 1 c d 0=1 1=3
Deconvolution    dc     1 1 d e 0=2 1=3 3=2 4=1 5=1 6=54
Split            sp     1 2 e e1 e2
Crop             crop   1 1 e1 f 0=1 1=1 3=4 4=4 5=2
Crop             crop2  1 1 e2 g 3=4 4=4 5=2
Concat           cat    2 1 f g out 0=0
"""
forward['layers'] = (p, blob(floats(54)) + raw(floats(2)))
p = """7767517
8 8
Input            data   0 1 data 0=6 1=5 2=4
PReLU            pr     1 1 data a 0=4
UnaryOp          tanh   1 1 a b 0=16
GELU             gelu   1 1 b c
ELU              elu    1 1 c d 0=0.3
Power            pow    1 1 d e 0=2 1=0.5 2=0.1
Log              log    1 1 e f 0=10 1=1 2=1
Softplus         sp     1 1 f out
"""
forward['elementwise'] = (p, raw(floats(4)))

for name, (param, bin_bytes) in forward.items():
    data = param.encode()
    os.makedirs(os.path.join(here, 'corpus', 'forward'), exist_ok=True)
    with open(os.path.join(here, 'corpus', 'forward', name), 'wb') as f:
        f.write(struct.pack('<I', len(data)) + data + bin_bytes)
