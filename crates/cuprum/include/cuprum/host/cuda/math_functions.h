// math_functions.h for the host device: what it declares is in cuprum/host/prelude.h.
#pragma once
