# c0005
import torch
