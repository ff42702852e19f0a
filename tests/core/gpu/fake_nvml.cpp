// SPDX-License-Identifier: MIT
// A fake NVML with the C entry points kwb_gpu loads: one "NVIDIA Test GPU" with fixed figures,
// or none when FAKE_NVML_DEVICES=0; FAKE_NVML_INIT_FAIL=1 makes nvmlInit_v2 fail (driver not loaded).
#include <cstdlib>
#include <cstring>

namespace {
bool devices() { const char *v = std::getenv("FAKE_NVML_DEVICES"); return !v || std::strcmp(v, "0") != 0; }
struct Mem { unsigned long long total, free, used; };
struct Util { unsigned int gpu, memory; };
int dummy;
} // namespace

extern "C" {
int nvmlInit_v2() { const char *v = std::getenv("FAKE_NVML_INIT_FAIL"); return v && std::strcmp(v, "1") == 0 ? 9 : 0; }
const char *nvmlErrorString(int r) { return r == 9 ? "Driver Not Loaded" : "Unknown Error"; }
int nvmlSystemGetDriverVersion(char *buf, unsigned int n) { std::strncpy(buf, "550.54.15", n); return 0; }
int nvmlDeviceGetCount_v2(unsigned int *count) { *count = devices() ? 1 : 0; return 0; }
int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void **dev) { if (i > 0) return 2; *dev = &dummy; return 0; }
int nvmlDeviceGetName(void *, char *buf, unsigned int n) { std::strncpy(buf, "NVIDIA Test GPU", n); return 0; }
int nvmlDeviceGetMemoryInfo(void *, Mem *m) { m->total = 80ull << 30; m->used = 3ull << 30; m->free = m->total - m->used; return 0; }
int nvmlDeviceGetClockInfo(void *, int type, unsigned int *mhz) { *mhz = type == 1 ? 1980 : 2619; return 0; }
int nvmlDeviceGetUtilizationRates(void *, Util *u) { u->gpu = 42; u->memory = 17; return 0; }
int nvmlDeviceGetTemperature(void *, int, unsigned int *t) { *t = 51; return 0; }
}
