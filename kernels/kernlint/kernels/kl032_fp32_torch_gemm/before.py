"""KL032 present: an fp32 linear layer and its ReLU left to torch. cuBLAS runs the fp32 GEMM without TF32
(torch's default), on the CUDA cores: about 52 TFLOPS on an H100 (calibration probe `gemm_fp32`); the ReLU
and the fp16 cast are two more passes over the output."""

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, in_features=4096, out_features=4096):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.relu(self.fc(x)).to(torch.float16)


M = K = N = 4096


def get_inputs():
    return [torch.randn(M, K)]


def get_init_inputs():
    return [K, N]
