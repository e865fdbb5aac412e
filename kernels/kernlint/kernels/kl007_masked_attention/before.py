"""KL007 before: minGPT's causal attention in torch.

The scores are scaled, masked with a causal mask buffer, softmaxed and
passed through dropout before `@ v`: each step a kernel with the [S, S]
matrix written to memory and read back, and the masked half computed anyway.
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

MAX_SEQLEN = 1024


class ModelNew(nn.Module):
    def __init__(self, attn_pdrop=0.0):
        super().__init__()
        self.attn_dropout = nn.Dropout(attn_pdrop)
        mask = torch.tril(torch.ones(MAX_SEQLEN, MAX_SEQLEN)).view(1, 1, MAX_SEQLEN, MAX_SEQLEN)
        self.register_buffer("bias", mask, persistent=False)

    def forward(self, q, k, v):
        T = q.size(-2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        att = self.attn_dropout(att)
        return att @ v
