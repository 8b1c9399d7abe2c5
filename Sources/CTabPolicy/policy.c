/* Compiled so SwiftPM treats CTabPolicy as a C target; the ABI lives in the header. */
#include "tabd/policy.h"
