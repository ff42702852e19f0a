# c0002
import torch
