#include "baseline.h"
