// sm_32_intrinsics.h for the host device: what it declares is in cuprum/host/prelude.h.
#pragma once
