#include "runtime/conv_path.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "jit/winograd_conf.h"
#include "runtime/cpu.h"

namespace jitconv {

namespace {

// ---- The path table --------------------------------------------------------------
// ncnn's x86 create_pipeline order: Winograd for 3x3 stride-1 undilated kernels when
// in > 8 or out > 8; then GEMM when "the im2col working set exceeds L2 or in/out > 16",
// always for 1x1; else packed direct. jitconv keeps that structure with thresholds
// measured on an Intel Xeon (Sapphire Rapids class, AVX-512, 48 KB L1d / 2 MB L2 per
// core, one thread) with `jitconv bench --algo ...` on bench_core and models_dev:
//  - 1x1 (any stride): GEMM (pointwise / subsample), except on AVX-512 the layers that
//    reduce the channels 4x or more on outputs of 14x14 and up, which the direct kernels
//    (input channels blocked, runs across rows) do better: 20 such layers of resnet50,
//    squeezenet and mobilenet v2/v3, one thread, x oneDNN, six interleaved rounds, direct
//    ahead on 13 (by up to 8%), GEMM on 4 (by at most 1.7%); two threads, five rounds,
//    direct ahead on 14; ResNet-50, one thread, five rounds, median of the per-round
//    minimum 44.96 -> 42.39 ms. On AVX2 it is a wash (256->64 @56 direct 0.93 / GEMM 1.02,
//    1024->256 @14 0.98 / 0.91). 84 other 1x1 layers of those models: no consistent
//    winner (3 rounds: within +-3% on most; GEMM ahead on 7x7 outputs). Strided rows
//    beyond L2 need the input-row prefetch both kernels have (1x1 256->128 s2 @56, five
//    interleaved rounds x oneDNN: GEMM 0.90-0.94 vs direct 0.82-0.89 in a busy period,
//    0.97-0.985 vs 0.95-0.97 in a quiet one).
//  - k x k: the direct kernel beat both GEMM forms on every k x k shape measured
//    (im2col 0.18-0.84x, brgemm 0.69-0.97x of direct), so ncnn's "in/out > 16 -> im2col"
//    rule is not taken: kGemmMinChannelsKxK is set past any real layer. On full-width
//    AVX-512, small outputs with large weights take GEMM (kGemmMaxOutputKxK).
//  - Winograd variant: by output size and channels; see kWinogradRows.
constexpr int kWinogradMinChannels = 8;        // ncnn: prefer Winograd when in > 8 or out > 8
constexpr int kGemmMinChannelsKxK = 1 << 30;   // measured: never for k x k here
constexpr int kDirectMinReduction = 4;         // 1x1 with in >= 4 x out channels ...
constexpr int kDirectMinOutput = 14;           // ... and outputs of 14 x 14 or more: direct
// ... (28 x 28 or more below 2 MiB of L2: Zen 4, x oneDNN, direct / GEMM alternating in one
// process, two rounds: 1024->256 @14 0.930 / 0.979 and 0.941 / 0.966, 256->64 @14 0.980 /
// 0.996 and 0.983 / 0.995; 512->128 @28 0.964 / 0.960 and 0.960 / 0.968, 256->64 @56 1.002 /
// 0.973 and 0.985 / 0.972).
constexpr int kDirectMinOutputSmallL2 = 28;
constexpr size_t kDirectLargeL2Bytes = size_t(2) << 20;
constexpr long kF53FullRateMinTiles = 18;  // f53_pays on full-width AVX-512
// k x k on full-width AVX-512 (Zen 5): GEMM (im2col) where the output is at most 7 x 7 and
// the weights outgrow 2 L2. The direct kernels pass over the weights once per output row,
// GEMM reads them once. ResNet-18's res5a_branch2a (3x3 s2 256->512 @7, 4.7 MB, `benchmodel
// ../shared/models/resnet18.param --loops 10 --warmup 3 --no-compare --profile`, two runs
// each) direct -> GEMM: one thread 0.68-0.70 -> 0.53-0.55 ms, two threads 0.40-0.43 ->
// 0.33-0.37 ms. Alone, x oneDNN (`jitconv bench --algo direct|gemm`, two rounds, one thread):
// 256->512 s2 @7 0.85-0.99 / 1.00-1.01, 512->512 s2 @7 0.88-0.95 / 1.15-1.16, 512@7 s1
// 0.96-1.02 / 1.11-1.14; where direct stays ahead: 128->256 s2 @14 (1.2 MB) 0.97-1.00 /
// 0.90, 256@14 s1 0.93-1.00 / 0.89-0.91, 5x5 96->256 @27 (2.4 MB) 0.98-0.99 / 0.90-0.95.
constexpr int kGemmMaxOutputKxK = 7;
constexpr double kGemmMinWeightL2sKxK = 2.0;

struct WinogradRow {
  int max_output;        // min(oh, ow) at most this ...
  int min_channels;      // ... and min(ic, oc) at least this ...
  const char* algo;      // ... prefer this variant ...
  int min_output = 0;    // ... when min(oh, ow) is at least this ...
  bool tight_tiles = false;  // ... and its 6x6 tiles pad oh and ow no more than F(4,3)'s 4x4.
  bool fewer_positions = false;  // ... and F(5,3) passes f53_pays (below).
  // ... where f63_loose_pays (below): with tight_tiles, on looser tiles too; alone, only there.
  bool f63_u_in_l2 = false;
};
// First matching row wins; unknown shapes take F(4,3). Small outputs waste the big tiles'
// padding, and their transformed weights (alpha^2/9 x the original) outgrow L2 and stream
// from L3 (the GEMM kernels prefetch the next panel of them, ConvWinograd::u_prefetch_lines).
// Medians of 4 interleaved rounds, one thread, x oneDNN (F23 / F43 / F63), with that
// prefetch: 512@7 1.53/0.84/0.42, 384->256@13 1.55/1.87/1.22, 256@14 1.75/2.25/1.59,
// 128@28 1.73/2.78/2.76, 96@35 1.51/2.44/2.42, 64@56 1.60/2.57/2.49, 32->128@28
// 1.45/2.30/2.16, 16->64@56 1.14/1.91/1.80.
// F(6,3) needs 1.27x fewer multiplications than F(4,3) per output, which its heavier
// transforms and 1.8x larger U eat up unless its tiles fit the output as tightly as F(4,3)'s.
// Paired calls alternating in one process (F(4,3) ms / F(6,3) ms, median of 300 pairs, one /
// two threads): tiles as tight: 96@35 1.05 / 1.10, 48@35 1.14 / 1.02, 32@48 1.08 / 1.06,
// 96@24 1.10 / 1.07, 128@24 1.09 / 1.06, 192@17 1.12 / 1.10, 256@18 1.28-1.30 / 1.11-1.16,
// 128@18 1.03 / 1.06-1.10, 128@17 0.98 / 1.04, 64@24 0.99-1.02 / 0.95-0.99, 64@35 1.01 /
// 1.07, 32->64@24 1.06 / 0.97; AVX2, one thread: 96@35 1.16, 48@35 1.18, 128@24 1.16,
// 192@17 1.37, 256@18 1.50, 64@24 1.06. Tiles looser: 64@56 0.95 / 0.94, 128@28 0.86 / 0.90;
// and 64@12 (2x2 tiles of 6) 0.90 / 0.78, hence the 16 floor. (Those pairs ran warm and on
// older transforms; timed as `jitconv bench` times them, F(6,3) has since won 64@56 on
// Zen 4: f63_loose_pays.)
//
// F(5,3) (7x7 tiles, 5x5 outputs) pays where 5 covers the output tighter than 4 and 6
// (f53_pays): 14x14 takes 9 tiles of 49 positions against F(4,3)'s 16 of 36 (441 against
// 576 GEMM columns per pixel of U). Zen 4 (AVX-512), one thread, x oneDNN, two interleaved
// rounds each, F(4,3) -> F(5,3): 256@14 2.29-2.32 -> 2.69-2.97, 128@14 2.46-2.53 ->
// 3.06-3.10, 512@14 2.59 -> 3.04, 64@14 2.14-2.18 -> 2.47-2.85, 32@14 1.84-2.03 ->
// 1.94-2.34, 384->256@13 1.51-1.88 -> 2.02-2.48, 192@13 1.53-1.64 -> 1.87-2.06, 96@25
// 1.97-2.29 -> 2.97-3.11, 64@20 3.22 -> 3.41-3.43, 64@10 1.86-1.89 -> 2.70-3.02; and where
// it lost: 256@10 1.86-1.89 -> 1.60-1.70, 512@10 2.15-2.37 -> 1.54-1.61 (4 tiles multiply
// all of a U that streams from L3, 12.8 / 51 MB).
// Zen 1 (CpuInfo::ymm_half_rate) keeps this table: F(4,3) at 7x7 (U 37.7 MB at 512@7,
// F(2,3)'s 16.8 MB) was bimodal there, 1.40-2.31 against F(2,3)'s 1.74-1.86 on one thread,
// 1.12-1.45 against 1.64-1.75 on two (`jitconv bench --algo`, five alternating rounds).
constexpr WinogradRow kWinogradRows[] = {
    {7, 0, "winograd23"},
    {1 << 30, 0, "winograd53", 9, false, true},
    {1 << 30, 0, "winograd63", 16, true, false, true},
    {1 << 30, 0, "winograd43"},
};
// F(6,3) on tiles looser than F(4,3)'s, where its U (64 ic oc floats) stays in L2 and at
// least 48 channels a side amortise its 8x8 input / output transforms, on half-width
// AVX-512 (the only host measured). Zen 4, `jitconv bench --algo winograd43|winograd63`
// alternating (3-5 rounds, each after oneDNN), medians x oneDNN, one / two threads: 64@56
// 3.07 -> 3.37 / 2.82 -> 3.21, 64@40 3.09 -> 3.36 / 3.05 -> 3.19, 64@56 d2 (28x28
// sub-images) 2.71 -> 2.90 / 2.49 -> 2.65, 64@112 3.18 -> 3.28 / 2.86 -> 3.07, 32@56 2.92 ->
// 3.05 / 2.39 -> 2.69, 48@56 2.73 -> 2.89 / 2.97 -> 3.09, 64@28 3.25 -> 3.26 / 3.16 -> 3.26,
// 32->128@28 3.06 -> 3.14 / 2.75 -> 2.86. Not taken: 16->64@56 2.74 -> 2.40 / 2.50 -> 2.53
// (few input channels); 32 channels gained little alone and nothing in SqueezeNet, whose
// fire4/5 expand3x3 (32->128@28, input hot from the squeeze layer) took 0.198 / 0.192 ms on
// F(4,3), 0.226 / 0.190 on F(6,3) (`benchmodel --profile`, 30 loops); and with U past L2
// 128@28 3.10 -> 3.06 / 3.31 -> 2.66, 128@56 3.15 -> 3.12 / 3.14 -> 2.84, 96@56 3.23 -> 3.22
// / 3.05 -> 3.06.
constexpr int kF63LooseMinChannels = 48;
bool f63_loose_pays(const ConvParams& p, Isa isa) {
  if (!half_rate_zmm(isa)) return false;
  const double u_bytes = 64.0 * p.ic * p.oc * 4;
  return std::min(p.ic, p.oc) >= kF63LooseMinChannels && u_bytes <= static_cast<double>(cpu_info().l2_bytes);
}
// Inside a network whose weights outgrow the cache (Option::weights_cold) every layer's
// weights stream from memory on each forward, and Winograd's alpha^2/9 larger weights
// cost more than its multiplies save on small outputs. Measured with a 192 MB sweep
// before each run (ms, direct / F23 / F43 / F63): 512@7 1.96/2.23/3.47/6.20,
// 256@14 1.44/1.06/1.24/1.74, 128@28 1.35/0.91/0.68/0.78, 64@56 1.39/0.93/0.64/0.64;
// with the direct kernels' next-group prefetch 512@7 direct 1.46. F23 / F43 on smaller
// channel counts at 13-14 (AlexNet's conv3-5, MobileNet-style 128@14): 384->256@13
// 1.51/1.86, 192@13 0.62/0.73, 192->128@13 0.45/0.52, 128@14 0.30/0.32. Since the GEMM
// kernels prefetch the next panel of U, F(2,3) beats direct at 7x7 too: ResNet-50's
// res5 3x3 layers (512@7, `benchmodel --profile`, means of 3 runs) 1.95 -> 1.53 ms on one
// thread, 1.96 -> 1.00 ms on two; its res4 layers (256@14) stay on F(2,3) (0.77 ms vs
// F(4,3) 0.91 on one thread). On Zen 4 (1 MiB L2, DDR5), in the network, F(5,3) beats
// F(2,3) there: ResNet-18's res4 3x3 layers (256@14, `benchmodel --profile`, one thread,
// two runs) 1.02-1.07 ms on F(2,3), 0.69-0.75 on F(5,3) with the weights cold all the same;
// f53_pays takes it only with 1 MiB of L2 or more (Zen 3's 512 KB machine never measured it).
// F(5,3) there on two threads as well (f53_pays): ResNet-50's six res4 3x3 layers, two
// threads, `benchmodel --profile`, five alternating runs, summed: F(2,3) 3.28-4.99 ms
// (median 4.52), F(5,3) 2.80-3.55 (2.99); AlexNet's conv3-5 (384@13, two-group 192->192 and
// 192->128 @13) 1.95-2.99 -> 1.82-1.87 ms (three runs). F(6,3) only where f63_loose_pays
// (tight tiles were not measured cold): ResNet-18's four res2 3x3 layers (64@56), three alternating
// runs, summed, F(4,3) / F(6,3): one thread 2.49-2.55 / 2.30-2.62 ms (medians 2.53 / 2.40),
// two threads 1.32-2.88 / 1.25-1.39 (1.35 / 1.28).
constexpr WinogradRow kWinogradRowsCold[] = {
    {7, 0, "winograd23"},
    {1 << 30, 0, "winograd53", 9, false, true},
    {14, 128, "winograd23"},
    {1 << 30, 0, "winograd63", 16, false, false, true},
    {1 << 30, 0, "winograd43"},
};

// Output extent covered by tiles of m outputs.
int tile_cover(int size, int m) { return (size + m - 1) / m * m; }

// Transform positions (GEMM columns) F(m,3) spends on an oh x ow output.
long positions(int oh, int ow, int m) {
  return static_cast<long>(m + 2) * ((oh + m - 1) / m) * (m + 2) * ((ow + m - 1) / m);
}

// F(5,3) over F(4,3) and F(6,3): at least 10% fewer positions than F(4,3), fewer than
// F(6,3), and when its weights (49 ic oc floats) outgrow L2, 9 tiles or more a thread to
// share them. Two threads split 14x14's 9 tiles 5 + 4, F(4,3)'s 16 go 8 + 8: Zen 4, x
// oneDNN, the two alternating in one process, F(4,3) / F(5,3), both phased: 256@14 1.81 /
// 1.66, 1.86 / 1.75, 1.92 / 1.85, 1.91 / 2.34, 1.95 / 1.88, 2.00 / 2.03, 2.18 / 2.22, 1.98 /
// 1.94 (medians 1.94 / 1.91: even; F(4,3) blocked, since reverted: 2.17 / 1.94, 2.23 / 1.96;
// 128@14 2.31 / 2.16). Two threads there are bound by the U stream (README, Zen 4), which
// F(5,3) makes 1.36x larger for 0.77x the multiplies; F(2,3) (U 4.2 MB) 1.69-1.74.
//
// A full-width AVX-512 core (Zen 5: 64 FLOP/cycle, CpuInfo::zmm_half_rate false) gains half
// as much time from each multiply saved while the transforms cost what they did, and U
// streams twice as fast for the same tiles: there F(5,3) needs 18 tiles (however many
// threads) unless U fits L2. Zen 5, x oneDNN, F(4,3) / F(5,3) alternating in one process
// (200-300 runs each), one thread: 256@14 1.98 / 1.62, 128@14 1.78 / 1.63, 512@14 2.47 /
// 2.22, 192@13 2.00 / 2.00 (9 tiles, U 1.8-51 MB); 64@14 (U 0.8 MB) 2.26 / 2.46; 96@25 (25
// tiles) 2.13 / 2.31, two threads 2.41 / 3.04; 256@14 two threads 1.68 / 1.42.
bool f53_pays(const ConvParams& p, int oh, int ow, int threads, bool weights_cold, Isa isa) {
  if (weights_cold && cpu_info().l2_bytes < kWinogradLargeL2Bytes) return false;  // measured only on Zen 4 (kWinogradRowsCold)
  const long p5 = positions(oh, ow, 5);
  if (p5 > 0.9 * positions(oh, ow, 4) || p5 >= positions(oh, ow, 6)) return false;
  const long tiles = static_cast<long>((oh + 4) / 5) * ((ow + 4) / 5);
  const double u_bytes = 49.0 * p.ic * p.oc * 4;
  // A core whose ymm FMAs run on 128-bit halves (Zen 1, 16 FLOP/cycle: CpuInfo::ymm_half_rate)
  // gains twice the time from each multiply saved for the same bytes moved, and F(5,3)
  // pays there on two threads too despite the uneven 5 + 4 split. Zen 1 (512 KB L2, 8 MB
  // L3), two threads, x oneDNN, `jitconv bench --algo winograd43|winograd53` alternating,
  // eight rounds: 256@14 2.44-2.57 -> 2.96-3.13, 384->256@13 2.13-2.25 -> 2.50-2.61,
  // 128@14 2.19-2.29 -> 2.56-2.69 (one thread, F(5,3) at 256@14: 3.10-3.19).
  // Half-width AVX-512 (Zen 4), two threads, U within L3: 9 tiles too, despite the 5 + 4
  // split (`jitconv bench --algo winograd43|winograd53` alternating, 4-6 rounds, x oneDNN,
  // F(4,3) -> F(5,3) medians: 256@14 2.10 -> 2.53 and 2.25 -> 2.47, 128@14 2.32 -> 2.50,
  // 384->256@13 (U 19 MB) 1.91 -> 2.17; past L3, 512@14 (51 MB) 2.42 -> 2.11).
  const bool u_in_l3 = u_bytes <= static_cast<double>(cpu_info().l3_bytes);
  const long min_tiles = full_width_zmm(isa)                            ? kF53FullRateMinTiles
                         : half_rate_ymm(isa) || (half_rate_zmm(isa) && u_in_l3) ? 9L
                                                                                : 9L * std::max(1, threads);
  return tiles >= min_tiles || u_bytes <= static_cast<double>(cpu_info().l2_bytes);
}

// Small outputs and large dilations put many of a 3x3 kernel's taps in the padding, which
// the direct kernels skip and Winograd computes anyway, on tiles that overhang the output.
// Winograd's time relative to direct's is then about (tile cover) / (valid taps x gain),
// with gain its time over direct's where neither counts: one thread, x oneDNN, auto /
// direct (their quotient, divided by cover / valid taps, is the gain): F(2,3) 256@4 1.13 /
// 1.10, 256@5 1.12 / 1.16, 256@33 d6 / d8 / d9 / d12 / d18 1.19 / 1.37 / 1.15 / 0.69 / 0.69
// against 0.93 / 1.03 / 1.02 / 1.01 / 1.04 (gains 1.5-2.0, 2.6 on 512 -> 256@65 d12), and
// where Winograd lost: 256@2 0.54 / 1.09, 256@3 0.71 / 1.24, 3x3 -> 1x1 0.46 / 1.09. The
// gains below are those measured or, for F(4,3) / F(6,3), their usual ratio to direct;
// direct is taken where the estimate says Winograd is more than 5% slower.
// F(5,3)'s between F(4,3)'s and F(6,3)'s (its tiles as tight as theirs: 64@30, 96@25
// about 3.4 / 3.0x oneDNN against F(4,3)'s 2.3 / 2.1).
double winograd_gain(int m) { return m == 2 ? 1.9 : m == 4 ? 2.5 : m == 5 ? 2.7 : 2.8; }
constexpr double kWinogradMaxEstimate = 1.05;

// One axis: the fraction of the kernel's taps inside the input over all outputs, and the
// tiles' cover of the outputs (a dilated layer's sub-images each rounded up to m).
struct AxisTaps {
  double valid;
  double cover;
};
AxisTaps axis_taps(int in, int out, int pad_begin, int dilation, int m) {
  long valid = 0, covered = 0;
  for (int y = 0; y < out; y++)
    for (int k = 0; k < 3; k++) {
      const int iy = y - pad_begin + k * dilation;
      valid += iy >= 0 && iy < in;
    }
  for (int r = 0; r < std::min(dilation, out); r++) covered += tile_cover((out - r + dilation - 1) / dilation, m);
  return {static_cast<double>(valid) / (3.0 * out), static_cast<double>(covered) / out};
}

// Winograd F(m,3)'s estimated time over the direct kernel's on this 3x3 stride-1 layer.
double winograd_over_direct(const ConvParams& p, int ih, int iw, int m) {
  int oh, ow;
  p.output_size(ih, iw, oh, ow);
  const ConvPads pads = p.pads_for(ih, iw);
  const AxisTaps rows = axis_taps(ih, oh, pads.top, p.dh, m), columns = axis_taps(iw, ow, pads.left, p.dw, m);
  return rows.cover * columns.cover / (rows.valid * columns.valid * winograd_gain(m));
}

bool winograd_enabled(const std::string& algo, const Option& opt) {
  if (!opt.use_winograd_convolution) return false;
  if (algo == "winograd23") return opt.use_winograd23_convolution;
  if (algo == "winograd43") return opt.use_winograd43_convolution;
  if (algo == "winograd53") return opt.use_winograd53_convolution;
  if (algo == "winograd63") return opt.use_winograd63_convolution;
  if (algo == "winograd63_43") return opt.use_winograd63_convolution && opt.use_winograd43_convolution;
  return false;
}

}  // namespace

bool conv_path_applies(const std::string& algo, const ConvParams& p, Isa isa, std::string* why) {
  auto no = [why](const char* reason) {
    if (why) *why = reason;
    return false;
  };
  if (algo == "scalar") return true;
  if (isa == Isa::scalar) return no("JIT paths need AVX2 or AVX-512");
  if (algo == "direct" || algo == "gemm" || algo == "brgemm") return true;
  if (algo == "dilated") {
    if (p.dh < 2 || p.dh != p.dw || p.kh != p.kw) return no("the dilated split needs a square kernel and dilation > 1");
    if (p.sh != 1 || p.sw != 1) return no("the dilated split needs stride 1");
    return true;
  }
  if (algo == "winograd23" || algo == "winograd43" || algo == "winograd53" || algo == "winograd63" ||
      algo == "winograd63_43") {
    if (p.kh != 3 || p.kw != 3) return no("Winograd needs a 3x3 kernel");
    if (p.sh != 1 || p.sw != 1) return no("Winograd needs stride 1");
    if (algo == "winograd63_43" && (p.dh != 1 || p.dw != 1)) return no("F(6,3) with F(4,3) borders needs dilation 1");
    static const std::string too_dilated = "Winograd takes dilations up to " + std::to_string(kWinogradMaxDilation);
    if (p.dh > kWinogradMaxDilation || p.dw > kWinogradMaxDilation) return no(too_dilated.c_str());
    return true;
  }
  return no("unknown algorithm");
}

std::vector<std::string> applicable_conv_paths(const ConvParams& p, Isa isa, const Option& opt) {
  std::vector<std::string> paths;
  for (const char* algo : {"direct", "gemm", "brgemm", "winograd23", "winograd43", "winograd53", "winograd63",
                          "winograd63_43", "dilated"}) {
    if (!conv_path_applies(algo, p, isa)) continue;
    const std::string a = algo;
    if ((a == "gemm" || a == "brgemm") && !opt.use_sgemm_convolution) continue;
    if (a.compare(0, 8, "winograd") == 0 && !winograd_enabled(a, opt)) continue;
    paths.push_back(a);
  }
  return paths;
}

PathChoice choose_conv_path(const ConvParams& p, Isa isa, const Option& opt, int ih, int iw) {
  if (isa == Isa::scalar) return {"scalar", "no AVX2: portable loops"};
  char reason[200];
  // ncnn: a dilated stride-1 square kernel without packing runs as a dilation-1
  // sub-convolution on space-to-batch sub-images (copied out and back).
  const bool dilated_split = p.kh == p.kw && p.dh == p.dw && p.dh > 1 && p.sh == 1 && p.sw == 1;
  if (dilated_split && !opt.use_packing_layout)
    return {"dilated", "dilated s1 without packing: dilation-1 sub-convolution (ncnn)"};
  // 3x3 stride 1, any dilation. A dilated layer runs Winograd on its dh x dw sub-images in
  // place (strided transforms, no copies; the variant by the sub-images' size). x oneDNN,
  // medians of six interleaved rounds, one / two threads: 64@56 d2 1.86 / 1.68 through
  // copied sub-images (the "dilated" path), 2.62 / 2.53 in place; 128@28 d2 1.75 / 1.61 ->
  // 2.12 / 2.15 (undilated 64@56 2.86 / 2.70).
  const bool winograd_shape = conv_path_applies("winograd43", p, isa);
  if (winograd_shape && (p.ic > kWinogradMinChannels || p.oc > kWinogradMinChannels)) {
    int oh = 0, ow = 0;
    if (ih > 0 && iw > 0) {
      p.output_size(ih, iw, oh, ow);
      oh = (oh + p.dh - 1) / p.dh;  // the largest sub-image's
      ow = (ow + p.dw - 1) / p.dw;
    }
    const int out = std::min(oh, ow);
    {
    const char* preferred = "winograd43";
    const WinogradRow* rows = opt.weights_cold ? kWinogradRowsCold : kWinogradRows;
    const size_t row_count = opt.weights_cold ? sizeof(kWinogradRowsCold) / sizeof(WinogradRow)
                                              : sizeof(kWinogradRows) / sizeof(WinogradRow);
    const bool tight_6x6 = tile_cover(oh, 6) <= tile_cover(oh, 4) && tile_cover(ow, 6) <= tile_cover(ow, 4);
    const bool f63_loose = f63_loose_pays(p, isa);
    auto tiles_fit = [&](const WinogradRow& row) {
      if (row.tight_tiles) return tight_6x6 || (row.f63_u_in_l2 && f63_loose);
      return !row.f63_u_in_l2 || f63_loose;
    };
    if (out > 0)
      for (size_t r = 0; r < row_count; r++) {
        const WinogradRow& row = rows[r];
        if (out <= row.max_output && std::min(p.ic, p.oc) >= row.min_channels && out >= row.min_output &&
            tiles_fit(row) && (!row.fewer_positions || f53_pays(p, oh, ow, opt.num_threads, opt.weights_cold, isa))) {
          preferred = row.algo;
          break;
        }
      }
    if (std::strcmp(preferred, "direct") == 0) goto not_winograd;
    // A disabled variant falls back 63 -> 43 -> 23 or 53 -> 43 -> 23 (and then to
    // GEMM/direct): F(5,3) only where its row chose it.
    static const char* const kOrder[] = {"winograd53", "winograd63", "winograd43", "winograd23"};
    int start = 0;
    while (std::strcmp(kOrder[start], preferred) != 0) start++;
    for (int i = start; i < 4; i++)
      if ((i == start || i >= 2) && winograd_enabled(kOrder[i], opt)) {
        const int m = kOrder[i][8] - '0';
        const double estimate = out > 0 ? winograd_over_direct(p, ih, iw, m) : 0.0;
        if (estimate > kWinogradMaxEstimate) {
          std::snprintf(reason, sizeof(reason),
                        "3x3 s1: direct, taps in the padding (Winograd F(%d,3) estimated %.2fx its time)", m, estimate);
          return {"direct", reason};
        }
        if (p.dh > 1 || p.dw > 1)
          std::snprintf(reason, sizeof(reason),
                        "3x3 s1 dilation %dx%d: Winograd on %d sub-images in place (in %d / out %d > %d), %s for %s",
                        p.dh, p.dw, p.dh * p.dw, p.ic, p.oc, kWinogradMinChannels, kOrder[i],
                        out > 0 ? "their output size" : "unknown shape (channels only)");
        else
          std::snprintf(reason, sizeof(reason), "3x3 s1: Winograd (in %d / out %d > %d), %s for %s", p.ic, p.oc,
                        kWinogradMinChannels, kOrder[i], out > 0 ? "this output size" : "unknown shape (channels only)");
        return {kOrder[i], reason};
      }
    }
  }
not_winograd:
  const bool pointwise = p.kh == 1 && p.kw == 1;
  // The output's smaller side (0: the input shape is not known yet).
  int out_h = 0, out_w = 0;
  if (ih > 0 && iw > 0) p.output_size(ih, iw, out_h, out_w);
  const int out_side = std::min(out_h, out_w);
  if (pointwise && isa == Isa::avx512 && p.ic >= kDirectMinReduction * p.oc && out_side > 0) {
    const int min_output = cpu_info().l2_bytes >= kDirectLargeL2Bytes ? kDirectMinOutput : kDirectMinOutputSmallL2;
    if (out_side >= min_output)
      return {"direct", "1x1 reducing channels (in >= 4 x out): direct kernel, input channels blocked"};
  }
  // Strided 1x1 on half-width AVX-512 (Zen 4): the direct kernels. x oneDNN, `jitconv bench
  // --algo gemm|direct` alternating, 3-5 rounds, medians GEMM / direct, one thread: 256->128
  // s2 @56 0.94 / 0.99, 256->512 s2 @56 0.98 / 1.01, 512->256 s2 @28 0.97 / 1.02, 128->256
  // s2 @28 0.99 / 1.01, 1024->512 s2 @14 1.01 / 1.04, 1024->2048 s2 @14 1.06 / 1.09,
  // 256->512 s2 @14 0.93 / 0.98; GEMM ahead only at 512->1024 s2 @28 1.00 / 0.97 and 64->128
  // s2 @56 1.01 / 1.00. Two threads: 256->128 s2 @56 0.95 / 0.98, 256->512 1.01 / 1.03,
  // 512->1024 0.96 / 1.04, 512->256 0.97 / 1.06, 1024->2048 0.88 / 1.09.
  if (pointwise && (p.sh > 1 || p.sw > 1) && half_rate_zmm(isa))
    return {"direct", "1x1 strided (half-width AVX-512): direct kernel"};
  if (opt.use_sgemm_convolution && !pointwise && full_width_zmm(isa) && out_side > 0 && out_side <= kGemmMaxOutputKxK &&
      4.0 * p.ic * p.oc * p.kh * p.kw > kGemmMinWeightL2sKxK * cpu_info().l2_bytes)
    return {"gemm", "k x k, small output, weights past 2 L2 (full-width AVX-512): GEMM reads them once"};
  if (opt.use_sgemm_convolution && (pointwise || p.ic > kGemmMinChannelsKxK || p.oc > kGemmMinChannelsKxK))
    return {"gemm", pointwise ? "1x1: GEMM on the packed input (subsampled when strided)" : "GEMM (channels)"};
  return {"direct", "k x k: direct kernel, padding taps skipped"};
}

}  // namespace jitconv
