#include "jit/winograd_gen.h"

#include <cmath>
#include <cstddef>
#include <cstring>
#include <sstream>

#include "runtime/error.h"

namespace jitconv {

using namespace Xbyak;

std::string WinogradTransformConf::name() const {
  std::ostringstream os;
  os << "winograd_" << (input ? "input" : "output") << "_" << isa_name(isa) << "_f" << m << "x3";
  if (bias) os << "_bias";
  if (residual) os << "_res";
  if (act.type != ActivationType::none) os << "_" << act.kernel_tag();
  if (stack_pass) os << "_stack";
  if (pixel_step != 1) os << "_px" << pixel_step;
  if (edge.any()) os << "_edge_t" << edge.top << "b" << edge.bottom << "l" << edge.left << "r" << edge.right;
  return os.str();
}

// AVX2's 16 vectors: the F(4,3) input holds a column group's 12 row results, c4, c5 and two
// temporaries (an edge window's pad value taken per row, in the row pass's spare register);
// the F(2,3) input two columns' 8 row results (groups {0, 3} and {1, 2}); the F(4,3) output
// 12 row results, the bias, two temporaries (constants as memory operands) and the
// activation's scratch; the F(2,3) output 8 row results. F(6,3)'s groups (16 / 24 row
// results) do not fit. TSC ticks per F(4,3) input tile of 8 channels (Zen 3, 20 tiles x 8
// packs, V 181 KB): stack 123, registers 83.
bool WinogradTransformConf::in_registers() const {
  if (stack_pass || m == 5) return false;  // F(5,3): stack form only
  if (isa == Isa::avx512) return true;
  if (input) return m != 6;
  if (m == 6) return false;
  const int row_results = m == 4 ? 14 : 8;  // F(4,3): with the column pass's two temporaries
  return row_results + (bias ? 1 : 0) + ActivationEmitter::temps_needed(isa, act) <= 16;
}

WinogradTransformGenerator::WinogradTransformGenerator(const WinogradTransformConf& conf)
    : conf_(conf), activation_(*this, conf.isa, conf.act) {
  for (int& r : constant_reg_) r = -1;
  if (conf.m != 2 && conf.m != 4 && conf.m != 5 && conf.m != 6) fail("Winograd transform: m must be 2, 4, 5 or 6");
  if (conf.isa == Isa::scalar) fail("Winograd transform kernels need AVX2 or AVX-512");
  if (conf.input && (conf.bias || conf.residual || conf.act.type != ActivationType::none))
    fail(conf.name(), ": bias, residual and activation belong to the output transform");
  // Input windows may start before the tensor; output tiles start inside it.
  const int extent = conf.input ? conf.m + 2 : conf.m;
  const WinogradEdge& e = conf.edge;
  if (!conf.input && (e.top || e.left)) fail(conf.name(), ": output tiles start inside the tensor");
  if (conf.pixel_step < 1 || conf.pixel_step > kWinogradMaxDilation)
    fail(conf.name(), ": pixel step must be in 1..", kWinogradMaxDilation);
  for (int v : {e.top, e.bottom, e.left, e.right})
    if (v < 0 || v > extent) fail(conf.name(), ": edge rows / columns must be in 0..", extent);
}

Xmm WinogradTransformGenerator::vec(int index) const {
  return conf_.isa == Isa::avx512 ? Xmm(Zmm(index)) : Xmm(Ymm(index));
}

namespace {
// The constant table, in Constant's order.
const float kConstantValues[] = {0.25f, 0.5f, 1.25f, 2.f, 2.5f, 4.f,     4.25f,  5.f,  5.25f, 8.f,
                                 16.f,  32.f, 0.125f, 0.0625f, 0.03125f, 1.5f, 3.5f, 4.5f, 6.f};

// F(5,3)'s B^T for the points 0, 1, -1, 2, -2, 1/2 and infinity (Cook-Toom, checked exactly
// in rationals; G is kG5 in runtime/winograd_weights.cpp). Every row has a +1 term.
const double kBT5[7][7] = {{-2, 4, 2.5, -5, -0.5, 1, 0},   {0, 2, -2, -4.5, 0.5, 1, 0}, {0, -2, 6, -3.5, -1.5, 1, 0},
                           {0, 1, -1.5, -2, 1.5, 1, 0},    {0, -1, 2.5, 0, -2.5, 1, 0}, {0, 4, 0, -5, 0, 1, 0},
                           {0, -2, 4, 2.5, -5, -0.5, 1}};
}  // namespace

Address WinogradTransformGenerator::constant(Constant c) { return ptr[rip + table_ + static_cast<int>(c) * 64]; }

WinogradTransformGenerator::Constant WinogradTransformGenerator::constant_of(double value) const {
  for (int i = 0; i < kConstantCount; i++)
    if (static_cast<double>(kConstantValues[i]) == std::fabs(value)) return static_cast<Constant>(i);
  fail(conf_.name(), ": no constant ", value);
}

int WinogradTransformGenerator::take() {
  if (free_.empty()) fail(conf_.name(), ": out of vector registers");
  const int r = free_.back();
  free_.pop_back();
  return r;
}

void WinogradTransformGenerator::give(int reg) { free_.push_back(reg); }

const Operand& WinogradTransformGenerator::coef(Constant c) {
  if (constant_reg_[c] >= 0) {
    operands_.push_back(vec(constant_reg_[c]));
    return operands_.back();
  }
  addresses_.push_back(constant(c));
  return addresses_.back();
}

void WinogradTransformGenerator::hoist_constants(int reserved) {
  // By uses per 1-D transform, most used first (the stack form's input_1d / output_1d).
  static const std::vector<Constant> input6 = {kC5_25, kC4_25, kC2_5, kC0_5, kC2, kC0_25, kC1_25, kC4, kC5};
  static const std::vector<Constant> input4 = {kC4, kC5, kC2};
  static const std::vector<Constant> output6 = {kC2, kC0_5, kC8, kC0_125, kC32, kC0_03125, kC4, kC0_25, kC16, kC0_0625};
  static const std::vector<Constant> output4 = {kC2, kC4, kC8};
  static const std::vector<Constant> input5 = {kC2, kC2_5, kC4, kC5, kC0_5, kC1_5, kC4_5, kC6, kC3_5};
  static const std::vector<Constant> output5 = {kC2, kC4, kC0_5, kC8, kC0_25, kC16, kC0_125, kC0_0625};
  static const std::vector<Constant> none;
  const std::vector<Constant>& order = conf_.m == 2   ? none
                                       : conf_.input ? (conf_.m == 6 ? input6 : conf_.m == 5 ? input5 : input4)
                                                     : (conf_.m == 6 ? output6 : conf_.m == 5 ? output5 : output4);
  for (Constant c : order) {
    if (static_cast<int>(free_.size()) <= reserved) break;
    constant_reg_[c] = take();
    vmovups(vec(constant_reg_[c]), constant(c));
  }
}

namespace {
Address at(CodeGenerator& g, const WinogradTransformGenerator::Lane& lane) { return g.ptr[lane.base + lane.offset]; }
}  // namespace

void WinogradTransformGenerator::load(int reg, const Lane& from) {
  if (from.outside)
    vbroadcastss(vec(reg), ptr[reg_args + offsetof(WinogradTransformArgs, pad_value)]);
  else
    vmovups(vec(reg), at(*this, from));
}

void WinogradTransformGenerator::store(const Lane& to, int reg, bool finish) {
  if (to.outside) return;
  if (finish) {
    if (conf_.bias) vaddps(vec(reg), vec(reg), vec(bias_reg_));
    if (conf_.residual) vaddps(vec(reg), vec(reg), ptr[to.base + reg_residual + to.offset]);
    if (conf_.act.type != ActivationType::none) {
      const int need = ActivationEmitter::temps_needed(conf_.isa, conf_.act);
      std::vector<int> temps;
      for (int i = 0; i < need; i++) temps.push_back(take());
      activation_.apply({reg}, temps);
      for (int t : temps) give(t);
    }
  }
  vmovups(at(*this, to), vec(reg));
}

void WinogradTransformGenerator::input_1d(const std::vector<Lane>& in, const std::vector<Lane>& out, bool finish) {
  const int A = conf_.m + 2;
  std::vector<int> d(A);
  for (int i = 0; i < A; i++) {
    d[i] = take();
    load(d[i], in[i]);
  }
  const int t = take(), u = take();
  auto put = [&](int k, int reg) { store(out[k], reg, finish); };
  if (conf_.m == 2) {
    vsubps(vec(t), vec(d[2]), vec(d[0]));
    put(0, t);
    vaddps(vec(t), vec(d[1]), vec(d[2]));
    put(1, t);
    vsubps(vec(t), vec(d[2]), vec(d[1]));
    put(2, t);
    vsubps(vec(t), vec(d[3]), vec(d[1]));
    put(3, t);
  } else if (conf_.m == 5) {
    // r_k = sum_l BT[k][l] d_l: from a +1 term, then one add / FMA per other term.
    for (int k = 0; k < A; k++) {
      const double* row = kBT5[k];
      int first = 0;
      while (row[first] != 1.0) first++;
      bool started = false;
      for (int l = 0; l < A; l++) {
        const double v = row[l];
        if (l == first || v == 0.0) continue;
        const Xmm acc = started ? vec(t) : vec(d[first]);
        if (v == 1.0) {
          vaddps(vec(t), acc, vec(d[l]));
        } else if (v == -1.0) {
          vsubps(vec(t), acc, vec(d[l]));
        } else {
          if (!started) vmovaps(vec(t), vec(d[first]));
          if (v > 0)
            vfmadd231ps(vec(t), vec(d[l]), coef(constant_of(v)));
          else
            vfnmadd231ps(vec(t), vec(d[l]), coef(constant_of(v)));
        }
        started = true;
      }
      if (!started) vmovaps(vec(t), vec(d[first]));
      put(k, t);
    }
  } else if (conf_.m == 4) {
    vmovaps(vec(t), vec(d[4]));  // r0 = 4 d0 - 5 d2 + d4
    vfmadd231ps(vec(t), vec(d[0]), coef(kC4));
    vfnmadd231ps(vec(t), vec(d[2]), coef(kC5));
    put(0, t);
    vmovaps(vec(t), vec(d[4]));  // a = d4 - 4 d2
    vfnmadd231ps(vec(t), vec(d[2]), coef(kC4));
    vmovaps(vec(u), vec(d[3]));  // b = d3 - 4 d1
    vfnmadd231ps(vec(u), vec(d[1]), coef(kC4));
    const int r = take();
    vaddps(vec(r), vec(t), vec(u));
    put(1, r);
    vsubps(vec(r), vec(t), vec(u));
    put(2, r);
    vsubps(vec(t), vec(d[4]), vec(d[2]));  // c = d4 - d2
    vsubps(vec(u), vec(d[3]), vec(d[1]));  // e = d3 - d1
    vmovaps(vec(r), vec(t));
    vfmadd231ps(vec(r), vec(u), coef(kC2));
    put(3, r);
    vmovaps(vec(r), vec(t));
    vfnmadd231ps(vec(r), vec(u), coef(kC2));
    put(4, r);
    vmovaps(vec(r), vec(d[5]));  // r5 = 4 d1 - 5 d3 + d5
    vfmadd231ps(vec(r), vec(d[1]), coef(kC4));
    vfnmadd231ps(vec(r), vec(d[3]), coef(kC5));
    put(5, r);
    give(r);
  } else {
    const int r = take();
    vsubps(vec(t), vec(d[2]), vec(d[4]));  // r0 = (d6 - d0) + 5.25 (d2 - d4)
    vsubps(vec(r), vec(d[6]), vec(d[0]));
    vfmadd231ps(vec(r), vec(t), coef(kC5_25));
    put(0, r);
    vsubps(vec(t), vec(d[3]), vec(d[5]));  // r7 = (d7 - d1) + 5.25 (d3 - d5)
    vsubps(vec(r), vec(d[7]), vec(d[1]));
    vfmadd231ps(vec(r), vec(t), coef(kC5_25));
    put(7, r);
    vaddps(vec(t), vec(d[2]), vec(d[6]));  // a12 = d2 + d6 - 4.25 d4
    vfnmadd231ps(vec(t), vec(d[4]), coef(kC4_25));
    vaddps(vec(u), vec(d[1]), vec(d[5]));  // b12 = d1 + d5 - 4.25 d3
    vfnmadd231ps(vec(u), vec(d[3]), coef(kC4_25));
    vaddps(vec(r), vec(t), vec(u));
    put(1, r);
    vsubps(vec(r), vec(t), vec(u));
    put(2, r);
    vmovaps(vec(t), vec(d[6]));  // a34 = 0.25 d2 - 1.25 d4 + d6
    vfmadd231ps(vec(t), vec(d[2]), coef(kC0_25));
    vfnmadd231ps(vec(t), vec(d[4]), coef(kC1_25));
    vmulps(vec(u), vec(d[1]), coef(kC0_5));  // b34 = 0.5 d1 - 2.5 d3 + 2 d5
    vfnmadd231ps(vec(u), vec(d[3]), coef(kC2_5));
    vfmadd231ps(vec(u), vec(d[5]), coef(kC2));
    vaddps(vec(r), vec(t), vec(u));
    put(3, r);
    vsubps(vec(r), vec(t), vec(u));
    put(4, r);
    vmovaps(vec(t), vec(d[6]));  // a56 = 4 d2 - 5 d4 + d6
    vfmadd231ps(vec(t), vec(d[2]), coef(kC4));
    vfnmadd231ps(vec(t), vec(d[4]), coef(kC5));
    vmulps(vec(u), vec(d[1]), coef(kC2));  // b56 = 2 d1 - 2.5 d3 + 0.5 d5
    vfnmadd231ps(vec(u), vec(d[3]), coef(kC2_5));
    vfmadd231ps(vec(u), vec(d[5]), coef(kC0_5));
    vaddps(vec(r), vec(t), vec(u));
    put(5, r);
    vsubps(vec(r), vec(t), vec(u));
    put(6, r);
    give(r);
  }
  give(u);
  give(t);
  for (int i = A - 1; i >= 0; i--) give(d[i]);
}

void WinogradTransformGenerator::output_1d(const std::vector<Lane>& in, const std::vector<Lane>& out, bool finish) {
  const int A = conf_.m + 2;
  std::vector<int> t(A);
  for (int i = 0; i < A; i++) {
    t[i] = take();
    load(t[i], in[i]);
  }
  const int y = take();
  auto put = [&](int k) { store(out[k], y, finish); };
  if (conf_.m == 2) {
    vaddps(vec(y), vec(t[0]), vec(t[1]));
    vaddps(vec(y), vec(y), vec(t[2]));
    put(0);
    vsubps(vec(y), vec(t[1]), vec(t[2]));
    vaddps(vec(y), vec(y), vec(t[3]));
    put(1);
  } else {
    // Pair sums and differences, kept in the input registers: t1 = s12, t2 = d12, ...
    const int pairs = conf_.m / 2;
    for (int p = 0; p < pairs; p++) {
      const int a = t[1 + 2 * p], b = t[2 + 2 * p];
      vsubps(vec(y), vec(a), vec(b));
      vaddps(vec(a), vec(a), vec(b));
      vmovaps(vec(b), vec(y));
    }
    const int s12 = t[1], d12 = t[2], s34 = t[3], d34 = t[4];
    // y0 = t0 + s12 + s34 (+ s56; F(5,3): + t5, the point 1/2)
    vaddps(vec(y), vec(t[0]), vec(s12));
    vaddps(vec(y), vec(y), vec(s34));
    if (conf_.m >= 5) vaddps(vec(y), vec(y), vec(t[5]));
    put(0);
    if (conf_.m == 5) {
      // y_k = (d12 | s12) + 2^k (d34 | s34) + 2^-k t5, and y4 adds t6 (infinity).
      const Constant up[5] = {kConstantCount, kC2, kC4, kC8, kC16};
      const Constant down[5] = {kConstantCount, kC0_5, kC0_25, kC0_125, kC0_0625};
      for (int k = 1; k < 5; k++) {
        const bool odd = k % 2 == 1;
        if (k == 4)
          vaddps(vec(y), vec(s12), vec(t[6]));
        else
          vmovaps(vec(y), vec(odd ? d12 : s12));
        vfmadd231ps(vec(y), vec(odd ? d34 : s34), coef(up[k]));
        vfmadd231ps(vec(y), vec(t[5]), coef(down[k]));
        put(k);
      }
    } else if (conf_.m == 4) {
      vmovaps(vec(y), vec(d12));  // y1 = d12 + 2 d34
      vfmadd231ps(vec(y), vec(d34), coef(kC2));
      put(1);
      vmovaps(vec(y), vec(s12));  // y2 = s12 + 4 s34
      vfmadd231ps(vec(y), vec(s34), coef(kC4));
      put(2);
      vaddps(vec(y), vec(d12), vec(t[5]));  // y3 = d12 + 8 d34 + t5
      vfmadd231ps(vec(y), vec(d34), coef(kC8));
      put(3);
    } else {
      const int s56 = t[5], d56 = t[6];
      const Constant odd_c[3] = {kC2, kC8, kC32}, odd_e[3] = {kC0_5, kC0_125, kC0_03125};
      const Constant even_c[2] = {kC4, kC16}, even_e[2] = {kC0_25, kC0_0625};
      for (int k = 1; k < 6; k++) {
        const bool odd = k % 2 == 1;
        if (odd) {
          if (k == 5)
            vaddps(vec(y), vec(d12), vec(t[7]));
          else
            vmovaps(vec(y), vec(d12));
          vfmadd231ps(vec(y), vec(d34), coef(odd_c[k / 2]));
          vfmadd231ps(vec(y), vec(d56), coef(odd_e[k / 2]));
        } else {
          vmovaps(vec(y), vec(s12));
          vfmadd231ps(vec(y), vec(s34), coef(even_c[k / 2 - 1]));
          vfmadd231ps(vec(y), vec(s56), coef(even_e[k / 2 - 1]));
        }
        put(k);
      }
    }
  }
  give(y);
  for (int i = A - 1; i >= 0; i--) give(t[i]);
}

void WinogradTransformGenerator::generate() {
  if (conf_.in_registers()) {
    conf_.input ? generate_input_in_registers() : generate_output_in_registers();
    return;
  }
  const WinogradTransformConf& c = conf_;
  const int A = c.m + 2, vbytes = c.vlen * 4;
  for (int r = vector_registers() - 1; r >= 0; r--) free_.push_back(r);
  if (c.bias) bias_reg_ = take();

  preamble();
  const int tmp_vectors = c.input ? A * A : A * c.m;
  // The buffer is 64-byte aligned: rsp is 8 mod 16 here, and a vector that straddles two
  // cache lines (every other one, unaligned) costs a split load / store and forwards
  // slower from pass 1 to pass 2. The old rsp is kept above the buffer.
  const int tmp_bytes = tmp_vectors * vbytes;
  mov(rax, rsp);
  sub(rsp, tmp_bytes + 64);
  and_(rsp, -64);
  mov(ptr[rsp + tmp_bytes], rax);
  load_tile_args();
  // Constants the 1-D transforms multiply by stay in the registers a 1-D transform and
  // the activation leave free (memory operands otherwise: loads were the bottleneck, two a
  // cycle against 22 of them per F(6,3) 1-D transform and 8 of data).
  const int transform_registers =
      c.input ? A + 3 : A + 1 + ActivationEmitter::temps_needed(c.isa, c.act);
  hoist_constants(transform_registers);
  mov(reg_src_stride, ptr[reg_args + offsetof(WinogradTransformArgs, src_stride)]);
  mov(reg_dst_stride, ptr[reg_args + offsetof(WinogradTransformArgs, dst_stride)]);
  if (c.bias) {
    mov(rax, ptr[reg_args + offsetof(WinogradTransformArgs, bias)]);
    vmovups(vec(bias_reg_), ptr[rax]);
  }
  // Walking pointers: one per strided row/position touched by a 1-D transform. Each is
  // set with lea from a base and a stride register, so no multiplies per tile.
  const Reg64 walk[8] = {r13, r14, r15, rax, rbx, rcx, rdx, rsi};
  const Reg64 stride_big = rbp;  // input: A * panel stride; output: A * panel stride
  // Points walk[0..n) at base + i * stride, i < n.
  auto spread = [&](const Reg64& base, const Reg64& stride, int n) {
    mov(walk[0], base);
    for (int i = 1; i < n; i++) lea(walk[i], ptr[walk[i - 1] + stride]);
  };

  tile_loop([&] {
    if (c.input) {
      // Pass 1: each input row (A consecutive pixels) -> tmp row.
      spread(reg_src, reg_src_stride, A);
      for (int i = 0; i < A; i++) {
        std::vector<Lane> in, out;
        for (int j = 0; j < A; j++) {
          in.push_back(Lane{walk[i], static_cast<long>(j) * c.pixel_step * vbytes, c.edge.outside(i, j, A)});
          out.push_back(Lane{rsp, static_cast<long>(i * A + j) * vbytes});
        }
        input_1d(in, out, false);
      }
      // Pass 2: each tmp column -> positions j, A + j, 2A + j, ... of the V panels.
      mov(stride_big, reg_dst_stride);
      imul(stride_big, stride_big, A);
      for (int j = 0; j < A; j++) {
        if (j == 0)
          spread(reg_dst, stride_big, A);
        else
          for (int i = 0; i < A; i++) add(walk[i], reg_dst_stride);
        std::vector<Lane> in, out;
        for (int i = 0; i < A; i++) {
          in.push_back(Lane{rsp, static_cast<long>(i * A + j) * vbytes});
          out.push_back(Lane{walk[i], 0});
        }
        input_1d(in, out, false);
      }
    } else {
      // Pass 1: each row of positions (i A .. i A + A - 1) -> tmp row of m.
      mov(stride_big, reg_src_stride);
      imul(stride_big, stride_big, A);
      for (int i = 0; i < A; i++) {
        if (i == 0) {
          spread(reg_src, reg_src_stride, A);
        } else {
          for (int k = 0; k < A; k++) add(walk[k], stride_big);
        }
        std::vector<Lane> in, out;
        for (int j = 0; j < A; j++) in.push_back(Lane{walk[j], 0});
        for (int k = 0; k < c.m; k++) out.push_back(Lane{rsp, static_cast<long>(i * c.m + k) * vbytes});
        output_1d(in, out, false);
      }
      // Pass 2: each tmp column k -> output column k, rows 0..m-1 (bias, residual,
      // activation). Pass 2 walks m <= 6 rows, so the last walking register is free.
      if (c.residual) mov(reg_residual, ptr[reg_args + offsetof(WinogradTransformArgs, residual_offset)]);
      spread(reg_dst, reg_dst_stride, c.m);
      for (int k = 0; k < c.m; k++) {
        std::vector<Lane> in, out;
        for (int i = 0; i < A; i++) in.push_back(Lane{rsp, static_cast<long>(i * c.m + k) * vbytes});
        for (int r = 0; r < c.m; r++)
          out.push_back(Lane{walk[r], static_cast<long>(k) * c.pixel_step * vbytes, c.edge.outside(r, k, c.m)});
        output_1d(in, out, true);
      }
    }
  });
  mov(rsp, ptr[rsp + tmp_bytes]);
  postamble();
  emit_table();
  activation_.emit_table();
}

void WinogradTransformGenerator::load_tile_args() {
  mov(reg_src, ptr[reg_args + offsetof(WinogradTransformArgs, src)]);
  mov(reg_dst, ptr[reg_args + offsetof(WinogradTransformArgs, dst)]);
  mov(reg_count, ptr[reg_args + offsetof(WinogradTransformArgs, count)]);
}

void WinogradTransformGenerator::tile_loop(const std::function<void()>& body) {
  Label l_loop, l_end;
  L(l_loop);
  test(reg_count, reg_count);
  jz(l_end, T_NEAR);
  body();
  add(reg_src, ptr[reg_args + offsetof(WinogradTransformArgs, src_tile_step)]);
  add(reg_dst, ptr[reg_args + offsetof(WinogradTransformArgs, dst_tile_step)]);
  dec(reg_count);
  jmp(l_loop, T_NEAR);
  L(l_end);
}

void WinogradTransformGenerator::emit_table() {
  static_assert(sizeof(kConstantValues) / sizeof(kConstantValues[0]) == kConstantCount, "one value per constant");
  align(64);
  L(table_);
  for (int i = 0; i < kConstantCount; i++) {
    uint32_t bits;
    std::memcpy(&bits, &kConstantValues[i], 4);
    for (int lane = 0; lane < 16; lane++) dd(bits);
  }
}

}  // namespace jitconv
