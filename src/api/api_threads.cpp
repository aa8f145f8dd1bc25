// tfp_set_threads / tfp_threads / tfp_max_threads: the kernels' thread pool
// (kernels/parallel.h) behind the C API.
#include "api/tfp_threads_api.h"

#include "kernels/parallel.h"

int tfp_set_threads(int n) { return tfp::kernels::set_threads(n); }
int tfp_threads(void) { return tfp::kernels::threads(); }
int tfp_max_threads(void) { return tfp::kernels::max_threads(); }
