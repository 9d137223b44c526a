// libFuzzer target for the .bin decoder. The input starts with a load plan, then the
// weight bytes:
//   byte 0         number of loads n (0..15)
//   n x 3 bytes    value count (little-endian 16 bits) and load type (0 or 1 in bit 0)
//   rest           the .bin bytes
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "loader/model_bin_reader.h"
#include "runtime/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t loads = data[0] & 15;
  if (size < 1 + 3 * loads) return 0;
  std::vector<unsigned char> bin(data + 1 + 3 * loads, data + size);
  jitconv::DataReaderFromMemory reader(bin.data(), bin.size());
  jitconv::ModelBinFromDataReader mb(reader);
  for (size_t k = 0; k < loads; k++) {
    const uint8_t* plan = data + 1 + 3 * k;
    const int w = plan[0] | (plan[1] << 8);
    try {
      jitconv::Mat m = mb.load(w, plan[2] & 1);
      if (w > 0 && m.w != w) abort();
    } catch (const jitconv::Error&) {
      return 0;
    }
  }
  return 0;
}
