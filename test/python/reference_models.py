"""PyTorch twins of the seed models in models/*.pbtxt, the test oracle.

The modules are written the way the reference notebooks write them -- "The
Annotated Transformer" for the encoder-decoder and the char LM, Peter Bloem's
"former" for the classifier -- with two deliberate differences from the
Annotated Transformer, both fixed by the specs:
  * post-LayerNorm sublayers, x = LayerNorm(x + Dropout(Sublayer(x))), with
    the norms owned by the layer (`norm1`, `norm2`, ...) and no final norm;
  * the generator is a plain Linear returning logits (the loss applies
    log_softmax), and forward() returns those logits.
Attribute names are chosen so that `state_dict()` keys are exactly the
parameter names Transfuse gives the spec (`encoder.layers.0.self_attn.w_q.
weight`), so weights move between the two without renaming. Constant tables
(the sinusoidal encoding) are non-persistent buffers for the same reason.

Runs on Debian's python3-torch (1.13) under /usr/bin/python3.
"""
import copy
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def clones(module, n):
    return nn.ModuleList([copy.deepcopy(module) for _ in range(n)])


# --- The Annotated Transformer ---------------------------------------------

def subsequent_mask(size):
    """[1, size, size], True where attending is allowed (not the future)."""
    attn_shape = (1, size, size)
    return torch.triu(torch.ones(attn_shape), diagonal=1).type(torch.uint8) == 0


def attention(query, key, value, mask=None, dropout=None):
    d_k = query.size(-1)
    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    p_attn = scores.softmax(dim=-1)
    if dropout is not None:
        p_attn = dropout(p_attn)
    return torch.matmul(p_attn, value), p_attn


class MultiHeadedAttention(nn.Module):
    def __init__(self, h, d_model, dropout=0.1):
        super().__init__()
        assert d_model % h == 0
        self.d_k = d_model // h
        self.h = h
        # The notebook's `linears` list, named one by one.
        self.w_q = nn.Linear(d_model, d_model)
        self.w_k = nn.Linear(d_model, d_model)
        self.w_v = nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)
        self.attn = None
        self.dropout = nn.Dropout(p=dropout)

    def forward(self, query, key, value, mask=None):
        if mask is not None:
            mask = mask.unsqueeze(1)  # same mask for every head
        nbatches = query.size(0)
        query, key, value = [
            lin(x).view(nbatches, -1, self.h, self.d_k).transpose(1, 2)
            for lin, x in zip((self.w_q, self.w_k, self.w_v),
                              (query, key, value))
        ]
        x, self.attn = attention(query, key, value, mask=mask,
                                 dropout=self.dropout)
        x = x.transpose(1, 2).contiguous().view(nbatches, -1,
                                                self.h * self.d_k)
        return self.w_o(x)


class PositionwiseFeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.1):
        super().__init__()
        self.w_1 = nn.Linear(d_model, d_ff)
        self.w_2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.w_2(self.dropout(self.w_1(x).relu()))


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout, max_len=5000):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len).unsqueeze(1)
        div_term = torch.exp(
            torch.arange(0, d_model, 2) * -(math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        # Not a parameter, so not in the state_dict.
        self.register_buffer("pe", pe.unsqueeze(0), persistent=False)

    def forward(self, x):
        x = x + self.pe[:, : x.size(1)].requires_grad_(False)
        return self.dropout(x)


class Embeddings(nn.Embedding):
    """The notebook's nn.Sequential(Embeddings(d, vocab), PositionalEncoding),
    as one module whose only parameter is `weight`."""

    def __init__(self, d_model, vocab, dropout, scale=True):
        super().__init__(vocab, d_model)
        self.d_model = d_model
        self.scale = scale
        self.position = PositionalEncoding(d_model, dropout)

    def forward(self, x):
        x = super().forward(x)
        if self.scale:
            x = x * math.sqrt(self.d_model)
        return self.position(x)


class AnnotatedLayerNorm(nn.Module):
    """The notebook's own LayerNorm: x.std() is unbiased and eps is added to
    it. Its a_2 and b_2 are named weight and bias, as the spec names them."""

    def __init__(self, features, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(features))
        self.bias = nn.Parameter(torch.zeros(features))
        self.eps = eps

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        std = x.std(-1, keepdim=True)
        return self.weight * (x - mean) / (std + self.eps) + self.bias


class RMSNorm(nn.Module):
    """torch.nn.RMSNorm (PyTorch 2.4 and later) with eps=None, at float32's
    machine epsilon in either precision, as the spec's rms_norm default."""

    def __init__(self, features, eps=torch.finfo(torch.float32).eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(features))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) \
            * self.weight


class EncoderLayer(nn.Module):
    """Self-attention and feed-forward, each post-LayerNorm."""

    def __init__(self, size, self_attn, feed_forward, dropout,
                 norm=nn.LayerNorm):
        super().__init__()
        self.self_attn = self_attn
        self.feed_forward = feed_forward
        self.norm1 = norm(size)
        self.norm2 = norm(size)
        self.dropout = nn.Dropout(dropout)
        self.size = size

    def forward(self, x, mask):
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)))
        return self.norm2(x + self.dropout(self.feed_forward(x)))


class Encoder(nn.Module):
    def __init__(self, layer, n):
        super().__init__()
        self.layers = clones(layer, n)

    def forward(self, x, mask):
        for layer in self.layers:
            x = layer(x, mask)
        return x


class DecoderLayer(nn.Module):
    """Masked self-attention, source attention and feed-forward, post-LN."""

    def __init__(self, size, self_attn, src_attn, feed_forward, dropout,
                 norm=nn.LayerNorm):
        super().__init__()
        self.size = size
        self.self_attn = self_attn
        self.src_attn = src_attn
        self.feed_forward = feed_forward
        self.norm1 = norm(size)
        self.norm2 = norm(size)
        self.norm3 = norm(size)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, memory, src_mask, tgt_mask):
        m = memory
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)))
        x = self.norm2(x + self.dropout(self.src_attn(x, m, m, src_mask)))
        return self.norm3(x + self.dropout(self.feed_forward(x)))


class Decoder(nn.Module):
    def __init__(self, layer, n):
        super().__init__()
        self.layers = clones(layer, n)

    def forward(self, x, memory, src_mask, tgt_mask):
        for layer in self.layers:
            x = layer(x, memory, src_mask, tgt_mask)
        return x


class EncoderDecoder(nn.Module):
    def __init__(self, encoder, decoder, src_embed, tgt_embed, generator,
                 pad=0):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder
        self.src_embed = src_embed
        self.tgt_embed = tgt_embed
        self.generator = generator
        self.pad = pad

    def forward(self, src, tgt, src_mask=None, tgt_mask=None):
        """Logits [batch, tgt_len, tgt_vocab]; masks as the notebook's Batch
        builds them when not given."""
        if src_mask is None:
            src_mask = (src != self.pad).unsqueeze(-2)
        if tgt_mask is None:
            tgt_mask = (tgt != self.pad).unsqueeze(-2) & \
                subsequent_mask(tgt.size(-1)).type_as(src_mask)
        memory = self.encode(src, src_mask)
        return self.generator(self.decode(memory, src_mask, tgt, tgt_mask))

    def encode(self, src, src_mask):
        return self.encoder(self.src_embed(src), src_mask)

    def decode(self, memory, src_mask, tgt, tgt_mask):
        return self.decoder(self.tgt_embed(tgt), memory, src_mask, tgt_mask)


def make_model(src_vocab, tgt_vocab, N=6, d_model=512, d_ff=2048, h=8,
               dropout=0.1, norm=nn.LayerNorm):
    c = copy.deepcopy
    attn = MultiHeadedAttention(h, d_model, dropout)
    ff = PositionwiseFeedForward(d_model, d_ff, dropout)
    model = EncoderDecoder(
        Encoder(EncoderLayer(d_model, c(attn), c(ff), dropout, norm), N),
        Decoder(DecoderLayer(d_model, c(attn), c(attn), c(ff), dropout, norm),
                N),
        Embeddings(d_model, src_vocab, dropout),
        Embeddings(d_model, tgt_vocab, dropout),
        nn.Linear(d_model, tgt_vocab),
    )
    # As the notebook: Glorot / fan_avg initialisation of every matrix.
    for p in model.parameters():
        if p.dim() > 1:
            nn.init.xavier_uniform_(p)
    return model


# --- Decoder-only character LM ----------------------------------------------

class CharLM(nn.Module):
    """The Transformer's decoder without cross-attention: its layers are the
    EncoderLayer above run under a causal mask. PyTorch default init."""

    def __init__(self, vocab=256, N=4, d_model=256, d_ff=1024, h=4,
                 dropout=0.1, norm=nn.LayerNorm):
        super().__init__()
        self.embedding = Embeddings(d_model, vocab, dropout)
        layer = EncoderLayer(d_model, MultiHeadedAttention(h, d_model, dropout),
                             PositionwiseFeedForward(d_model, d_ff, dropout),
                             dropout, norm)
        self.layers = clones(layer, N)
        self.output = nn.Linear(d_model, vocab)  # untied from the embedding

    def forward(self, tokens):
        mask = subsequent_mask(tokens.size(-1)).to(tokens.device)
        x = self.embedding(tokens)
        for layer in self.layers:
            x = layer(x, mask)
        return self.output(x)


# --- former (Peter Bloem) ---------------------------------------------------

def mask_(matrices, maskval=0.0, mask_diagonal=True):
    """Masks out the upper half of the last two dims, in place."""
    b, h, w = matrices.size()
    indices = torch.triu_indices(h, w, offset=0 if mask_diagonal else 1)
    matrices[:, indices[0], indices[1]] = maskval


class SelfAttention(nn.Module):
    """former's (narrow) self-attention: heads folded into the batch, no bias
    on q/k/v, q and k each scaled by emb^(1/4)."""

    def __init__(self, emb, heads=8, mask=False):
        super().__init__()
        assert emb % heads == 0
        self.emb, self.heads, self.mask = emb, heads, mask
        self.tokeys = nn.Linear(emb, emb, bias=False)
        self.toqueries = nn.Linear(emb, emb, bias=False)
        self.tovalues = nn.Linear(emb, emb, bias=False)
        self.unifyheads = nn.Linear(emb, emb)

    def forward(self, x):
        b, t, e = x.size()
        h = self.heads
        s = e // h
        keys = self.tokeys(x).view(b, t, h, s)
        queries = self.toqueries(x).view(b, t, h, s)
        values = self.tovalues(x).view(b, t, h, s)
        keys = keys.transpose(1, 2).contiguous().view(b * h, t, s)
        queries = queries.transpose(1, 2).contiguous().view(b * h, t, s)
        values = values.transpose(1, 2).contiguous().view(b * h, t, s)
        # Scaled by emb, not the head width: cheaper than scaling the dot.
        queries = queries / (e ** (1 / 4))
        keys = keys / (e ** (1 / 4))
        dot = torch.bmm(queries, keys.transpose(1, 2))
        if self.mask:
            mask_(dot, maskval=float("-inf"), mask_diagonal=False)
        dot = F.softmax(dot, dim=2)
        out = torch.bmm(dot, values).view(b, h, t, s)
        out = out.transpose(1, 2).contiguous().view(b, t, s * h)
        return self.unifyheads(out)


class TransformerBlock(nn.Module):
    def __init__(self, emb, heads, mask, seq_length, ff_hidden_mult=4,
                 dropout=0.0):
        super().__init__()
        self.attention = SelfAttention(emb, heads=heads, mask=mask)
        self.mask = mask
        self.norm1 = nn.LayerNorm(emb)
        self.norm2 = nn.LayerNorm(emb)
        self.ff = nn.Sequential(
            nn.Linear(emb, ff_hidden_mult * emb),
            nn.ReLU(),
            nn.Linear(ff_hidden_mult * emb, emb))
        self.do = nn.Dropout(dropout)

    def forward(self, x):
        attended = self.attention(x)
        x = self.norm1(attended + x)
        x = self.do(x)
        fedforward = self.ff(x)
        x = self.norm2(fedforward + x)
        return self.do(x)


class CTransformer(nn.Module):
    """Sequence classifier: returns log-probabilities [batch, classes]."""

    def __init__(self, emb, heads, depth, seq_length, num_tokens, num_classes,
                 max_pool=True, dropout=0.0):
        super().__init__()
        self.num_tokens, self.max_pool = num_tokens, max_pool
        self.token_embedding = nn.Embedding(num_tokens, emb)
        self.pos_embedding = nn.Embedding(seq_length, emb)
        self.tblocks = nn.Sequential(*[
            TransformerBlock(emb=emb, heads=heads, seq_length=seq_length,
                             mask=False, dropout=dropout)
            for _ in range(depth)])
        self.toprobs = nn.Linear(emb, num_classes)
        self.do = nn.Dropout(dropout)

    def forward(self, x):
        tokens = self.token_embedding(x)
        b, t, e = tokens.size()
        positions = self.pos_embedding(
            torch.arange(t, device=x.device))[None, :, :].expand(b, t, e)
        x = self.do(tokens + positions)
        x = self.tblocks(x)
        x = x.max(dim=1)[0] if self.max_pool else x.mean(dim=1)
        return F.log_softmax(self.toprobs(x), dim=1)


# --- The seed models ----------------------------------------------------------

# Must agree with models/<name>.pbtxt.
CONFIGS = {
    "transformer_base": dict(src_vocab=10000, tgt_vocab=10000, N=6,
                             d_model=512, d_ff=2048, h=8, dropout=0.1),
    "transformer_small": dict(src_vocab=10000, tgt_vocab=10000, N=2,
                              d_model=128, d_ff=512, h=4, dropout=0.1),
    "transformer_small_annotated": dict(src_vocab=10000, tgt_vocab=10000, N=2,
                                        d_model=128, d_ff=512, h=4,
                                        dropout=0.1, norm=AnnotatedLayerNorm),
    "sentiment_classifier": dict(emb=128, heads=8, depth=3, seq_length=256,
                                 num_tokens=50000, num_classes=2,
                                 max_pool=True, dropout=0.0),
    "char_lm": dict(vocab=256, N=4, d_model=256, d_ff=1024, h=4, dropout=0.1),
    # char_lm.pbtxt with `rms_norm {}` for each `layer_norm {}` (made by the
    # test that uses it).
    "char_lm_rms": dict(vocab=256, N=4, d_model=256, d_ff=1024, h=4,
                        dropout=0.1, norm=RMSNorm),
    # char_lm's architecture at GPT-2 small's size (bench/gpu.py).
    "gpt2_small_lm": dict(vocab=50257, N=12, d_model=768, d_ff=3072, h=12,
                          dropout=0.1),
}


def build(model_name):
    """The torch module of seed model `model_name`, freshly initialised."""
    cfg = CONFIGS[model_name]
    if model_name.startswith("transformer_"):
        return make_model(**cfg)
    if model_name == "sentiment_classifier":
        return CTransformer(**cfg)
    if model_name.startswith("char_lm") or model_name == "gpt2_small_lm":
        return CharLM(**cfg)
    raise KeyError(model_name)
