"""JAX twins of test/python/reference_models.py's seed models, for
bench/forward.py's XLA peer (inference, no dropout) and bench/train.py's
(training: dropout where the reference module has it, with JAX's random
bits instead of PyTorch's).

Each forward takes the PyTorch reference model's parameters by their
state_dict names (so the benchmark's weights file serves every side) and
computes what the reference module computes, in the same order of
operations; the driver checks the outputs against ours. The head count is
the spec's (bench/forward.py reads it); everything else comes from the
parameters' shapes. Runs under bench/.venv's Python (no PyTorch there).
"""
import math

import jax
import jax.numpy as jnp


def linear(p, name, x):
    """nn.Linear: x Wᵀ + b (b when the layer has one)."""
    y = x @ p[name + ".weight"].T
    bias = p.get(name + ".bias")
    return y if bias is None else y + bias


def layer_norm(p, name, x, eps=1e-5):
    """nn.LayerNorm over the last axis (biased variance)."""
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / jnp.sqrt(var + eps) * p[name + ".weight"] + \
        p[name + ".bias"]


def no_dropout(x):
    return x


class Dropout:
    """Inverted dropout at `rate` (the reference modules' nn.Dropout), each
    site with its own key folded from `key`: sites are numbered in the
    order the forward reaches them, the same in every trace."""

    def __init__(self, key, rate):
        self.key, self.rate, self.sites = key, rate, 0

    def __call__(self, x):
        if self.rate == 0.0:
            return x
        self.sites += 1
        keep = jax.random.bernoulli(jax.random.fold_in(self.key, self.sites),
                                    1.0 - self.rate, x.shape)
        return jnp.where(keep, x / (1.0 - self.rate), 0.0)


# The reference modules' dropout rate, by model.
DROPOUT = {"char_lm": 0.1, "sentiment_classifier": 0.0,
           "transformer_small": 0.1, "transformer_base": 0.1}


def layer_count(p, prefix):
    """How many `prefix.N.` layers the parameters hold."""
    return len({k[len(prefix):].split(".")[0] for k in p if k.startswith(
        prefix)})


# --- The Annotated Transformer ------------------------------------------------

def subsequent_mask(size):
    """[1, size, size], True where attending is allowed."""
    return jnp.tril(jnp.ones((size, size), bool))[None]


def positional_encoding(length, d_model):
    position = jnp.arange(length, dtype=jnp.float32)[:, None]
    div_term = jnp.exp(jnp.arange(0, d_model, 2, dtype=jnp.float32) *
                       -(math.log(10000.0) / d_model))
    pe = jnp.zeros((length, d_model), jnp.float32)
    pe = pe.at[:, 0::2].set(jnp.sin(position * div_term))
    return pe.at[:, 1::2].set(jnp.cos(position * div_term))


def embeddings(p, name, tokens, drop):
    """Embeddings: the table's rows scaled by √d, plus the sinusoids."""
    table = p[name + ".weight"]
    d_model = table.shape[1]
    x = table[tokens] * math.sqrt(d_model)
    return drop(x + positional_encoding(tokens.shape[1], d_model)[None])


def multi_headed_attention(p, name, heads, query, key, value, mask, drop):
    batch = query.shape[0]
    d_k = query.shape[-1] // heads

    def split(projection, x):
        return linear(p, name + "." + projection, x).reshape(
            batch, -1, heads, d_k).transpose(0, 2, 1, 3)

    q, k, v = split("w_q", query), split("w_k", key), split("w_v", value)
    scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(d_k)
    scores = jnp.where(mask[:, None], scores, -1e9)
    x = drop(jax.nn.softmax(scores, axis=-1)) @ v
    x = x.transpose(0, 2, 1, 3).reshape(batch, -1, heads * d_k)
    return linear(p, name + ".w_o", x)


def feed_forward(p, name, x, drop):
    return linear(p, name + ".w_2",
                  drop(jax.nn.relu(linear(p, name + ".w_1", x))))


def encoder_layer(p, name, heads, x, mask, drop):
    x = layer_norm(p, name + ".norm1", x + drop(multi_headed_attention(
        p, name + ".self_attn", heads, x, x, x, mask, drop)))
    return layer_norm(p, name + ".norm2", x + drop(
        feed_forward(p, name + ".feed_forward", x, drop)))


def decoder_layer(p, name, heads, x, memory, src_mask, tgt_mask, drop):
    x = layer_norm(p, name + ".norm1", x + drop(multi_headed_attention(
        p, name + ".self_attn", heads, x, x, x, tgt_mask, drop)))
    x = layer_norm(p, name + ".norm2", x + drop(multi_headed_attention(
        p, name + ".src_attn", heads, x, memory, memory, src_mask, drop)))
    return layer_norm(p, name + ".norm3", x + drop(
        feed_forward(p, name + ".feed_forward", x, drop)))


def encoder_decoder(p, heads, src, tgt, drop=no_dropout):
    """Logits [batch, tgt_len, tgt_vocab], padding (id 0) masked."""
    src_mask = (src != 0)[:, None, :]
    tgt_mask = (tgt != 0)[:, None, :] & subsequent_mask(tgt.shape[1])
    x = embeddings(p, "src_embed", src, drop)
    for i in range(layer_count(p, "encoder.layers.")):
        x = encoder_layer(p, "encoder.layers.%d" % i, heads, x, src_mask,
                          drop)
    memory = x
    x = embeddings(p, "tgt_embed", tgt, drop)
    for i in range(layer_count(p, "decoder.layers.")):
        x = decoder_layer(p, "decoder.layers.%d" % i, heads, x, memory,
                          src_mask, tgt_mask, drop)
    return linear(p, "generator", x)


def char_lm(p, heads, tokens, drop=no_dropout):
    """The decoder-only LM's logits [batch, seq, vocab]."""
    mask = subsequent_mask(tokens.shape[1])
    x = embeddings(p, "embedding", tokens, drop)
    for i in range(layer_count(p, "layers.")):
        x = encoder_layer(p, "layers.%d" % i, heads, x, mask, drop)
    return linear(p, "output", x)


# --- former (Peter Bloem) -----------------------------------------------------

def self_attention(p, name, heads, x):
    """former's self-attention: q and k each scaled by emb^(1/4)."""
    b, t, e = x.shape
    s = e // heads

    def split(projection):
        return linear(p, name + "." + projection, x).reshape(
            b, t, heads, s).transpose(0, 2, 1, 3)

    queries = split("toqueries") / (e ** (1 / 4))
    keys = split("tokeys") / (e ** (1 / 4))
    dot = jax.nn.softmax(queries @ keys.transpose(0, 1, 3, 2), axis=-1)
    out = (dot @ split("tovalues")).transpose(0, 2, 1, 3).reshape(b, t, e)
    return linear(p, name + ".unifyheads", out)


def sentiment_classifier(p, heads, tokens, drop=no_dropout):
    """Log-probabilities [batch, classes], max-pooled over the sequence (its
    reference module has no dropout: `drop` is ignored)."""
    t = tokens.shape[1]
    x = p["token_embedding.weight"][tokens] + \
        p["pos_embedding.weight"][:t][None]
    for i in range(layer_count(p, "tblocks.")):
        name = "tblocks.%d" % i
        x = layer_norm(p, name + ".norm1",
                       self_attention(p, name + ".attention", heads, x) + x)
        hidden = jax.nn.relu(linear(p, name + ".ff.0", x))
        x = layer_norm(p, name + ".norm2", linear(p, name + ".ff.2", hidden) + x)
    return jax.nn.log_softmax(linear(p, "toprobs", x.max(axis=1)), axis=1)


FORWARDS = {"char_lm": char_lm, "sentiment_classifier": sentiment_classifier,
            "transformer_small": encoder_decoder,
            "transformer_base": encoder_decoder}


def compiled_forward(model, heads):
    """jax.jit of `model`'s forward(params, *inputs), the head count fixed."""
    forward = FORWARDS[model]
    return jax.jit(lambda params, *inputs: forward(params, heads, *inputs))
