// heavy.cu with two things clang warns about under -Wall (an unused
// function and the unused variable in it), for the test that each of
// clang's diagnostics reaches the user once although the driver compiles
// the device side twice (the second time with ptxas' register count).
#include "heavy.cu"

static int unused_helper() {
  int never_read = 1;
  return 0;
}
