// <cooperative_groups/reduce.h> for the host device: cooperative_groups::reduce is in
// <cooperative_groups.h>.
#pragma once
#include <cooperative_groups.h>
