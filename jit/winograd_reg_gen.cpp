// The register-resident forms of the Winograd transforms (AVX-512: every variant both
// ways; AVX2: those whose column groups fit 16 vectors, WinogradTransformConf::in_registers).
//
// The stack form transforms every row of a tile into a stack buffer and reads it back for
// the column pass: 36 extra stores and loads per F(4,3) tile, and the 1-D transforms copy
// registers to keep their inputs. Here the row pass computes one group of output columns
// of every row (columns that share subexpressions: F(4,3) input {0} {5} {1,2} {3,4},
// output {0,2} {1,3}; F(6,3) input {0} {7} {1,2} {3,4} {5,6}, output {0,2,4} {1,3,5};
// F(2,3) input all four columns (AVX2: {0,3} {1,2}), output both) into registers, reading
// its inputs as memory operands, and the column pass transforms those registers straight to memory,
// overwriting values as they die. Each output is the same sequence of roundings as the
// stack form (same factorization, operands only commuted), so both give identical bits.
#include <cstddef>
#include <deque>
#include <functional>
#include <vector>

#include "jit/winograd_gen.h"
#include "runtime/error.h"

namespace jitconv {

using namespace Xbyak;

namespace {

// Registers that address base + i * stride: stride, 3 stride, 5 stride (i < 6) and
// 7 stride (i < 8, F(6,3) only).
struct Strides {
  Reg64 s1, s3, s5, s7;
};

Address strided(CodeGenerator& g, const Reg64& base, const Strides& s, int i, long disp) {
  switch (i) {
    case 0: return g.ptr[base + disp];
    case 1: return g.ptr[base + s.s1 + disp];
    case 2: return g.ptr[base + s.s1 * 2 + disp];
    case 3: return g.ptr[base + s.s3 + disp];
    case 4: return g.ptr[base + s.s1 * 4 + disp];
    case 5: return g.ptr[base + s.s5 + disp];
    case 6: return g.ptr[base + s.s3 * 2 + disp];
    case 7: return g.ptr[base + s.s7 + disp];
    default: fail("Winograd transform: no addressing for row ", i);
  }
}

void set_strides(CodeGenerator& g, const Strides& s, int count) {
  g.lea(s.s3, g.ptr[s.s1 + s.s1 * 2]);
  g.lea(s.s5, g.ptr[s.s1 + s.s1 * 4]);
  if (count > 6) g.lea(s.s7, g.ptr[s.s3 + s.s1 * 4]);
}

// The groups of output columns the row pass computes together. AVX2's 16 vectors hold two
// F(2,3) input columns of 4 rows, not all four.
std::vector<std::vector<int>> input_groups(int m, Isa isa) {
  if (m == 2) return isa == Isa::avx512 ? std::vector<std::vector<int>>{{0, 1, 2, 3}}
                                        : std::vector<std::vector<int>>{{0, 3}, {1, 2}};
  // AVX-512 has the registers for three columns of six rows: {0, 1, 2} reads d0..d4 and
  // {3, 4, 5} d1..d5, each pixel loaded once per group (row_columns_merged).
  if (m == 4) return isa == Isa::avx512 ? std::vector<std::vector<int>>{{0, 1, 2}, {3, 4, 5}}
                                        : std::vector<std::vector<int>>{{0}, {5}, {1, 2}, {3, 4}};
  return {{0}, {7}, {1, 2}, {3, 4}, {5, 6}};
}
std::vector<std::vector<int>> output_groups(int m) {
  if (m == 2) return {{0, 1}};
  if (m == 6) return {{0, 2, 4}, {1, 3, 5}};
  return {{0, 2}, {1, 3}};
}

// One group of a tile: the row pass over `rows` rows (row_pass(r) returns the registers
// holding the group's columns of row r), then the column pass on each column of the group
// (column_pass(its registers, top to bottom; its column index)).
template <typename RowPass, typename ColumnPass>
void rows_then_columns(int rows, const std::vector<int>& group, RowPass row_pass, ColumnPass column_pass) {
  std::vector<std::vector<int>> row_results(rows);
  for (int r = 0; r < rows; r++) row_results[r] = row_pass(r);
  for (size_t g = 0; g < group.size(); g++) {
    std::vector<int> column;
    for (const std::vector<int>& row : row_results) column.push_back(row[g]);
    column_pass(column, group[g]);
  }
}

}  // namespace

void WinogradTransformGenerator::generate_input_in_registers() {
  const WinogradTransformConf& c = conf_;
  const int A = c.m + 2;
  const long vbytes = c.vlen * 4L;
  for (int r = vector_registers() - 1; r >= 0; r--) free_.push_back(r);
  const bool f63 = c.m == 6;
  const int c4 = c.m != 2 ? take() : -1, c5 = c.m != 2 ? take() : -1;
  // F(6,3)'s other constants.
  const int c0_25 = f63 ? take() : -1, c0_5 = f63 ? take() : -1, c1_25 = f63 ? take() : -1, c2 = f63 ? take() : -1,
            c2_5 = f63 ? take() : -1, c4_25 = f63 ? take() : -1, c5_25 = f63 ? take() : -1;
  const Reg64 src = reg_src, dst = reg_dst, column = rcx;
  const Strides rows{r11, r13, r14, rdx};       // input rows: src_stride
  const Strides positions{r15, rax, rbx, rsi};  // V rows of positions: A * dst_stride
  const Reg64 panel = r12;                 // dst_stride: one position to the next
  // Edge windows: values in the padding come from one register holding pad_value, for the
  // whole kernel on AVX-512; on AVX2 (no register to spare) loaded for each row that has
  // such pixels and given back after it.
  const bool pad_per_row = c.isa != Isa::avx512;
  const int pad = c.edge.any() && !pad_per_row ? take() : -1;
  std::deque<Address> operands;  // keeps the memory operands in() hands out alive
  std::deque<Xmm> cached_operands;  // the same for registers
  std::vector<int> cached(A, -1);   // per column: the register holding this row's pixel, if loaded

  preamble();
  load_tile_args();
  mov(rows.s1, ptr[reg_args + offsetof(WinogradTransformArgs, src_stride)]);
  mov(panel, ptr[reg_args + offsetof(WinogradTransformArgs, dst_stride)]);
  set_strides(*this, rows, A);
  imul(positions.s1, panel, A);
  set_strides(*this, positions, A);
  const std::pair<int, Constant> constants[] = {{c4, kC4},       {c5, kC5},     {c0_25, kC0_25}, {c0_5, kC0_5},
                                                {c1_25, kC1_25}, {c2, kC2},     {c2_5, kC2_5},   {c4_25, kC4_25},
                                                {c5_25, kC5_25}};
  for (const auto& k : constants)
    if (k.first >= 0) vmovups(vec(k.first), constant(k.second));
  if (pad >= 0) vbroadcastss(vec(pad), ptr[reg_args + offsetof(WinogradTransformArgs, pad_value)]);
  Xmm pad_value = pad >= 0 ? vec(pad) : vec(0);

  // Row pass: the group's columns of row r, reading the row's pixels from memory.
  auto row_columns_of = [&](const std::vector<int>& group, int r) {
    auto in = [&](int col) -> const Operand& {
      if (c.edge.outside(r, col, A)) return pad_value;
      if (cached[col] >= 0) {
        cached_operands.push_back(vec(cached[col]));
        return cached_operands.back();
      }
      operands.push_back(strided(*this, src, rows, r, col * c.pixel_step * vbytes));
      return operands.back();
    };
    if (c.m == 2 && group.size() == 2) {
      if (group[0] == 0) {  // d2 - d0, d3 - d1
        const int r0 = take(), r3 = take();
        vmovups(vec(r0), in(2));
        vsubps(vec(r0), vec(r0), in(0));
        vmovups(vec(r3), in(3));
        vsubps(vec(r3), vec(r3), in(1));
        return std::vector<int>{r0, r3};
      }
      const int x1 = take(), x2 = take(), r1 = take();  // d1 + d2, d2 - d1
      vmovups(vec(x1), in(1));
      vmovups(vec(x2), in(2));
      vaddps(vec(r1), vec(x1), vec(x2));
      vsubps(vec(x2), vec(x2), vec(x1));
      give(x1);
      return std::vector<int>{r1, x2};
    }
    if (c.m == 2) {
      const int x1 = take(), x2 = take(), r0 = take(), r1 = take(), r3 = take();
      vmovups(vec(x2), in(2));
      vmovups(vec(x1), in(1));
      vsubps(vec(r0), vec(x2), in(0));  // d2 - d0
      vaddps(vec(r1), vec(x1), vec(x2));  // d1 + d2
      vmovups(vec(r3), in(3));
      vsubps(vec(r3), vec(r3), vec(x1));  // d3 - d1
      vsubps(vec(x2), vec(x2), vec(x1));  // d2 - d1
      give(x1);
      return std::vector<int>{r0, r1, x2, r3};
    }
    const int x = take();
    if (f63) {
      const int u = take();
      switch (group[0]) {
        case 0:  // (d6 - d0) + 5.25 (d2 - d4)
        case 7:  // (d7 - d1) + 5.25 (d3 - d5)
        {
          const int o = group[0] == 0 ? 0 : 1;
          vmovups(vec(u), in(2 + o));
          vsubps(vec(u), vec(u), in(4 + o));
          vmovups(vec(x), in(6 + o));
          vsubps(vec(x), vec(x), in(o));
          vfmadd231ps(vec(x), vec(u), vec(c5_25));
          give(u);
          return std::vector<int>{x};
        }
        case 1:  // (d2 + d6 - 4.25 d4) +- (d1 + d5 - 4.25 d3)
          vmovups(vec(x), in(2));
          vaddps(vec(x), vec(x), in(6));
          vfnmadd231ps(vec(x), vec(c4_25), in(4));
          vmovups(vec(u), in(1));
          vaddps(vec(u), vec(u), in(5));
          vfnmadd231ps(vec(u), vec(c4_25), in(3));
          break;
        case 3:  // (d6 + 0.25 d2 - 1.25 d4) +- (0.5 d1 - 2.5 d3 + 2 d5)
          vmovups(vec(x), in(6));
          vfmadd231ps(vec(x), vec(c0_25), in(2));
          vfnmadd231ps(vec(x), vec(c1_25), in(4));
          vmulps(vec(u), vec(c0_5), in(1));
          vfnmadd231ps(vec(u), vec(c2_5), in(3));
          vfmadd231ps(vec(u), vec(c2), in(5));
          break;
        default:  // (d6 + 4 d2 - 5 d4) +- (2 d1 - 2.5 d3 + 0.5 d5)
          vmovups(vec(x), in(6));
          vfmadd231ps(vec(x), vec(c4), in(2));
          vfnmadd231ps(vec(x), vec(c5), in(4));
          vmulps(vec(u), vec(c2), in(1));
          vfnmadd231ps(vec(u), vec(c2_5), in(3));
          vfmadd231ps(vec(u), vec(c0_5), in(5));
          break;
      }
      const int sum = take();
      vaddps(vec(sum), vec(x), vec(u));
      vsubps(vec(x), vec(x), vec(u));
      give(u);
      return std::vector<int>{sum, x};
    }
    switch (group[0]) {
      case 0:  // 4 d0 - 5 d2 + d4
      case 5:  // 4 d1 - 5 d3 + d5
      {
        const int o = group[0] == 0 ? 0 : 1;
        vmovups(vec(x), in(4 + o));
        vfmadd231ps(vec(x), vec(c4), in(o));
        vfnmadd231ps(vec(x), vec(c5), in(2 + o));
        return std::vector<int>{x};
      }
      case 1: {  // (d4 - 4 d2) +- (d3 - 4 d1)
        const int b = take(), sum = take();
        vmovups(vec(x), in(4));
        vfnmadd231ps(vec(x), vec(c4), in(2));
        vmovups(vec(b), in(3));
        vfnmadd231ps(vec(b), vec(c4), in(1));
        vaddps(vec(sum), vec(x), vec(b));
        vsubps(vec(x), vec(x), vec(b));
        give(b);
        return std::vector<int>{sum, x};
      }
      default: {  // (d4 - d2) +- 2 (d3 - d1)
        const int e = take(), sum = take();
        vmovups(vec(x), in(4));
        vsubps(vec(x), vec(x), in(2));
        vmovups(vec(e), in(3));
        vsubps(vec(e), vec(e), in(1));
        vaddps(vec(e), vec(e), vec(e));
        vaddps(vec(sum), vec(x), vec(e));
        vsubps(vec(x), vec(x), vec(e));
        give(e);
        return std::vector<int>{sum, x};
      }
    }
  };
  // A three-column F(4,3) group: its five pixels of row r loaded into registers once, then
  // the single groups' sequences ({0} and {1, 2}, or {3, 4} and {5}) on those registers:
  // the same operations in the same order as the four-group form, so the same bits, with 60
  // loads a tile instead of 84 (a host with one zmm load a cycle spent most of the
  // transform's time on them: README).
  auto row_columns_merged = [&](const std::vector<int>& group, int r) {
    const int first = group[0] == 0 ? 0 : 1;
    for (int col = first; col < first + 5; col++)
      if (!c.edge.outside(r, col, A)) {
        cached[col] = take();
        vmovups(vec(cached[col]), strided(*this, src, rows, r, col * c.pixel_step * vbytes));
      }
    std::vector<int> results = row_columns_of(group[0] == 0 ? std::vector<int>{0} : std::vector<int>{3, 4}, r);
    for (int reg : row_columns_of(group[0] == 0 ? std::vector<int>{1, 2} : std::vector<int>{5}, r))
      results.push_back(reg);
    for (int& reg : cached)
      if (reg >= 0) {
        give(reg);
        reg = -1;
      }
    return results;
  };
  auto row_columns = [&](const std::vector<int>& group, int r) {
    bool row_in_padding = false;
    for (int col = 0; col < A; col++) row_in_padding |= c.edge.outside(r, col, A);
    const int row_pad = pad_per_row && row_in_padding ? take() : -1;
    if (row_pad >= 0) {
      vbroadcastss(vec(row_pad), ptr[reg_args + offsetof(WinogradTransformArgs, pad_value)]);
      pad_value = vec(row_pad);
    }
    std::vector<int> results = group.size() == 3 && c.m == 4 ? row_columns_merged(group, r) : row_columns_of(group, r);
    if (row_pad >= 0) give(row_pad);
    return results;
  };
  // Column pass: d (one column of the row results, dead afterwards) -> A positions.
  auto column_out = [&](std::vector<int> d) {
    auto put = [&](int i, int reg) { vmovups(strided(*this, column, positions, i, 0), vec(reg)); };
    if (c.m == 2) {
      const int t = take();
      vsubps(vec(d[0]), vec(d[2]), vec(d[0]));
      put(0, d[0]);
      vsubps(vec(d[3]), vec(d[3]), vec(d[1]));
      put(3, d[3]);
      vaddps(vec(t), vec(d[1]), vec(d[2]));
      put(1, t);
      vsubps(vec(d[2]), vec(d[2]), vec(d[1]));
      put(2, d[2]);
      give(t);
    } else if (f63) {
      const int t = take(), a = take(), sum = take();
      vsubps(vec(t), vec(d[2]), vec(d[4]));  // (d6 - d0) + 5.25 (d2 - d4)
      vsubps(vec(d[0]), vec(d[6]), vec(d[0]));
      vfmadd231ps(vec(d[0]), vec(t), vec(c5_25));
      put(0, d[0]);
      vsubps(vec(t), vec(d[3]), vec(d[5]));  // (d7 - d1) + 5.25 (d3 - d5)
      vsubps(vec(d[7]), vec(d[7]), vec(d[1]));
      vfmadd231ps(vec(d[7]), vec(t), vec(c5_25));
      put(7, d[7]);
      auto pair = [&](int k) {  // outputs k, k + 1 from a and t
        vaddps(vec(sum), vec(a), vec(t));
        put(k, sum);
        vsubps(vec(a), vec(a), vec(t));
        put(k + 1, a);
      };
      vaddps(vec(a), vec(d[2]), vec(d[6]));  // d2 + d6 - 4.25 d4
      vfnmadd231ps(vec(a), vec(d[4]), vec(c4_25));
      vaddps(vec(t), vec(d[1]), vec(d[5]));  // d1 + d5 - 4.25 d3
      vfnmadd231ps(vec(t), vec(d[3]), vec(c4_25));
      pair(1);
      vmovaps(vec(a), vec(d[6]));  // d6 + 0.25 d2 - 1.25 d4 (d6 is needed once more)
      vfmadd231ps(vec(a), vec(d[2]), vec(c0_25));
      vfnmadd231ps(vec(a), vec(d[4]), vec(c1_25));
      vmulps(vec(t), vec(d[1]), vec(c0_5));  // 0.5 d1 - 2.5 d3 + 2 d5
      vfnmadd231ps(vec(t), vec(d[3]), vec(c2_5));
      vfmadd231ps(vec(t), vec(d[5]), vec(c2));
      pair(3);
      vmovaps(vec(a), vec(d[6]));  // d6 + 4 d2 - 5 d4
      vfmadd231ps(vec(a), vec(d[2]), vec(c4));
      vfnmadd231ps(vec(a), vec(d[4]), vec(c5));
      vmulps(vec(t), vec(d[1]), vec(c2));  // 2 d1 - 2.5 d3 + 0.5 d5
      vfnmadd231ps(vec(t), vec(d[3]), vec(c2_5));
      vfmadd231ps(vec(t), vec(d[5]), vec(c0_5));
      pair(5);
      give(sum);
      give(a);
      give(t);
    } else {
      const int cc = take(), e = take();
      vsubps(vec(cc), vec(d[4]), vec(d[2]));  // c = d4 - d2
      vsubps(vec(e), vec(d[3]), vec(d[1]));   // e = d3 - d1
      vfmadd132ps(vec(d[0]), vec(d[4]), vec(c4));  // 4 d0 + d4 - 5 d2
      vfnmadd231ps(vec(d[0]), vec(d[2]), vec(c5));
      put(0, d[0]);
      vfmadd231ps(vec(d[5]), vec(d[1]), vec(c4));  // d5 + 4 d1 - 5 d3
      vfnmadd231ps(vec(d[5]), vec(d[3]), vec(c5));
      put(5, d[5]);
      vfnmadd231ps(vec(d[4]), vec(d[2]), vec(c4));  // a = d4 - 4 d2
      vfnmadd231ps(vec(d[3]), vec(d[1]), vec(c4));  // b = d3 - 4 d1
      vaddps(vec(d[1]), vec(d[4]), vec(d[3]));
      put(1, d[1]);
      vsubps(vec(d[4]), vec(d[4]), vec(d[3]));
      put(2, d[4]);
      vaddps(vec(e), vec(e), vec(e));
      vaddps(vec(d[2]), vec(cc), vec(e));
      put(3, d[2]);
      vsubps(vec(cc), vec(cc), vec(e));
      put(4, cc);
      give(e);
      give(cc);
    }
    for (int reg : d) give(reg);
  };

  tile_loop([&] {
    for (const std::vector<int>& group : input_groups(c.m, c.isa))
      rows_then_columns(
          A, group, [&](int r) { return row_columns(group, r); },
          [&](const std::vector<int>& t, int j) {
            if (j == 0) {
              mov(column, dst);
            } else {
              imul(column, panel, j);
              add(column, dst);
            }
            column_out(t);
          });
  });
  postamble();
  emit_table();
}

void WinogradTransformGenerator::generate_output_in_registers() {
  if (conf_.m == 6) {
    generate_output63_in_registers();
    return;
  }
  const WinogradTransformConf& c = conf_;
  const int A = c.m + 2;
  const long vbytes = c.vlen * 4L;
  for (int r = vector_registers() - 1; r >= 0; r--) free_.push_back(r);
  if (c.bias) bias_reg_ = take();
  // F(4,3)'s constants: registers on AVX-512, memory operands on AVX2 (no registers to spare).
  // coef() hands out the register or the memory operand.
  const bool constant_registers = c.m == 4 && c.isa == Isa::avx512;
  const Constant register_constants[] = {kC2, kC4, kC8};
  if (constant_registers)
    for (Constant k : register_constants) constant_reg_[k] = take();
  const Reg64 src = reg_src, dst = reg_dst, row_dst = r12, position_row = rax, position_rows = r15;
  const Strides positions{r11, r13, r14, r11};  // M positions of a row: src_stride (A <= 6: no s7)
  const Reg64 out_rows[4] = {rbx, rcx, rdx, rbp};  // output rows 0 .. m-1 of the tile
  // reg_residual (rsi) holds residual_offset.

  preamble();
  load_tile_args();
  mov(positions.s1, ptr[reg_args + offsetof(WinogradTransformArgs, src_stride)]);
  mov(row_dst, ptr[reg_args + offsetof(WinogradTransformArgs, dst_stride)]);
  set_strides(*this, positions, A);
  imul(position_rows, positions.s1, A);
  if (c.residual) mov(reg_residual, ptr[reg_args + offsetof(WinogradTransformArgs, residual_offset)]);
  if (c.bias) {
    mov(out_rows[0], ptr[reg_args + offsetof(WinogradTransformArgs, bias)]);
    vmovups(vec(bias_reg_), ptr[out_rows[0]]);
  }
  if (constant_registers)
    for (Constant k : register_constants) vmovups(vec(constant_reg_[k]), constant(k));

  // Row pass: the group's outputs of position row i (the row's positions from memory).
  auto row_columns = [&](const std::vector<int>& group) {
    auto in = [&](int j) { return strided(*this, position_row, positions, j, 0); };
    const int a = take(), b = take(), y = take();
    if (c.m == 2) {
      give(b);
      vmovups(vec(a), in(1));
      vaddps(vec(y), vec(a), in(0));  // t0 + t1 + t2
      vaddps(vec(y), vec(y), in(2));
      vsubps(vec(a), vec(a), in(2));  // t1 - t2 + t3
      vaddps(vec(a), vec(a), in(3));
      return std::vector<int>{y, a};
    }
    vmovups(vec(a), in(1));
    vmovups(vec(b), in(3));
    if (group[0] == 0) {
      vaddps(vec(a), vec(a), in(2));  // s12
      vaddps(vec(b), vec(b), in(4));  // s34
      vaddps(vec(y), vec(a), in(0));  // y0 = t0 + s12 + s34
      vaddps(vec(y), vec(y), vec(b));
      vfmadd231ps(vec(a), vec(b), coef(kC4));  // y2 = s12 + 4 s34
      give(b);
      return std::vector<int>{y, a};
    }
    vsubps(vec(a), vec(a), in(2));  // d12
    vsubps(vec(b), vec(b), in(4));  // d34
    vaddps(vec(y), vec(a), in(5));  // y3 = d12 + t5 + 8 d34
    vfmadd231ps(vec(y), vec(b), coef(kC8));
    vfmadd231ps(vec(a), vec(b), coef(kC2));  // y1 = d12 + 2 d34
    give(b);
    return std::vector<int>{a, y};
  };
  // Column pass: t (column k of the row results, dead afterwards) -> output column k.
  auto column_out = [&](std::vector<int> t, int k) {
    auto put = [&](int r, int reg) {
      store(Lane{out_rows[r], k * c.pixel_step * vbytes, c.edge.outside(r, k, c.m)}, reg, true);
    };
    if (c.m == 2) {
      vaddps(vec(t[0]), vec(t[0]), vec(t[1]));
      vaddps(vec(t[0]), vec(t[0]), vec(t[2]));
      put(0, t[0]);
      vsubps(vec(t[1]), vec(t[1]), vec(t[2]));
      vaddps(vec(t[1]), vec(t[1]), vec(t[3]));
      put(1, t[1]);
    } else {
      const int d12 = take(), d34 = take();
      vsubps(vec(d12), vec(t[1]), vec(t[2]));
      vaddps(vec(t[1]), vec(t[1]), vec(t[2]));  // s12
      vsubps(vec(d34), vec(t[3]), vec(t[4]));
      vaddps(vec(t[3]), vec(t[3]), vec(t[4]));  // s34
      vaddps(vec(t[0]), vec(t[0]), vec(t[1]));
      vaddps(vec(t[0]), vec(t[0]), vec(t[3]));
      put(0, t[0]);
      vfmadd231ps(vec(t[1]), vec(t[3]), coef(kC4));
      put(2, t[1]);
      vaddps(vec(t[5]), vec(d12), vec(t[5]));
      vfmadd231ps(vec(t[5]), vec(d34), coef(kC8));
      put(3, t[5]);
      vfmadd231ps(vec(d12), vec(d34), coef(kC2));
      put(1, d12);
      give(d34);
      give(d12);
    }
    for (int reg : t) give(reg);
  };

  tile_loop([&] {
    mov(out_rows[0], dst);
    for (int r = 1; r < c.m; r++) lea(out_rows[r], ptr[out_rows[r - 1] + row_dst]);
    for (const std::vector<int>& group : output_groups(c.m)) {
      mov(position_row, src);
      rows_then_columns(
          A, group,
          [&](int i) {
            if (i > 0) add(position_row, position_rows);
            return row_columns(group);
          },
          column_out);
    }
  });
  postamble();
  emit_table();
  activation_.emit_table();
}

}  // namespace jitconv

namespace jitconv {

// F(6,3) output: groups {0, 2, 4} (pair sums) and {1, 3, 5} (pair differences) of 8 rows
// are 24 registers. General-purpose registers are short (six output rows, which the
// residual needs as single registers, besides the tile arguments), so the row pass reads
// the 8 positions of a row from two pointers (positions 0-3 and 4-7, at +0 / s1 / 2 s1 /
// 3 s1 from each) and constants stay memory operands.
void WinogradTransformGenerator::generate_output63_in_registers() {
  const WinogradTransformConf& c = conf_;
  const int A = 8;
  const long vbytes = c.vlen * 4L;
  for (int r = vector_registers() - 1; r >= 0; r--) free_.push_back(r);
  if (c.bias) bias_reg_ = take();
  const Reg64 src = reg_src, dst = reg_dst;
  const Reg64 s1 = r11, s3 = r12, row_lo = rax, row_hi = r13;  // row_hi also the row stride at tile start
  const Reg64 out_rows[6] = {rbx, rcx, rdx, rbp, r14, r15};
  // reg_residual (rsi) holds residual_offset.

  preamble();
  load_tile_args();
  mov(s1, ptr[reg_args + offsetof(WinogradTransformArgs, src_stride)]);
  lea(s3, ptr[s1 + s1 * 2]);
  if (c.residual) mov(reg_residual, ptr[reg_args + offsetof(WinogradTransformArgs, residual_offset)]);
  if (c.bias) {
    mov(out_rows[0], ptr[reg_args + offsetof(WinogradTransformArgs, bias)]);
    vmovups(vec(bias_reg_), ptr[out_rows[0]]);
  }
  auto in = [&](int j) {
    const Reg64& base = j < 4 ? row_lo : row_hi;
    switch (j % 4) {
      case 0: return ptr[base];
      case 1: return ptr[base + s1];
      case 2: return ptr[base + s1 * 2];
      default: return ptr[base + s3];
    }
  };
  // Row pass (stack form: pair sums / differences, then the outputs, same association).
  auto row_columns = [&](bool even) {
    const int a = take(), b = take(), e = take();
    vmovups(vec(a), in(1));
    vmovups(vec(b), in(3));
    vmovups(vec(e), in(5));
    if (even) {
      vaddps(vec(a), vec(a), in(2));  // s12
      vaddps(vec(b), vec(b), in(4));  // s34
      vaddps(vec(e), vec(e), in(6));  // s56
      const int y0 = take(), y2 = take();
      vaddps(vec(y0), vec(a), in(0));  // y0 = t0 + s12 + s34 + s56
      vaddps(vec(y0), vec(y0), vec(b));
      vaddps(vec(y0), vec(y0), vec(e));
      vmovaps(vec(y2), vec(a));  // y2 = s12 + 4 s34 + s56 / 4
      vfmadd231ps(vec(y2), vec(b), constant(kC4));
      vfmadd231ps(vec(y2), vec(e), constant(kC0_25));
      vfmadd231ps(vec(a), vec(b), constant(kC16));  // y4 = s12 + 16 s34 + s56 / 16
      vfmadd231ps(vec(a), vec(e), constant(kC0_0625));
      give(e);
      give(b);
      return std::vector<int>{y0, y2, a};
    }
    vsubps(vec(a), vec(a), in(2));  // d12
    vsubps(vec(b), vec(b), in(4));  // d34
    vsubps(vec(e), vec(e), in(6));  // d56
    const int y5 = take(), y3 = take();
    vaddps(vec(y5), vec(a), in(7));  // y5 = d12 + t7 + 32 d34 + d56 / 32
    vfmadd231ps(vec(y5), vec(b), constant(kC32));
    vfmadd231ps(vec(y5), vec(e), constant(kC0_03125));
    vmovaps(vec(y3), vec(a));  // y3 = d12 + 8 d34 + d56 / 8
    vfmadd231ps(vec(y3), vec(b), constant(kC8));
    vfmadd231ps(vec(y3), vec(e), constant(kC0_125));
    vfmadd231ps(vec(a), vec(b), constant(kC2));  // y1 = d12 + 2 d34 + d56 / 2
    vfmadd231ps(vec(a), vec(e), constant(kC0_5));
    give(e);
    give(b);
    return std::vector<int>{a, y3, y5};
  };
  // Column pass: t (column k of the row results, dead afterwards) -> output column k.
  auto column_out = [&](std::vector<int> t, int k) {
    auto put = [&](int r, int reg) {
      store(Lane{out_rows[r], k * c.pixel_step * vbytes, c.edge.outside(r, k, c.m)}, reg, true);
    };
    const int d12 = take();
    vsubps(vec(d12), vec(t[1]), vec(t[2]));
    vaddps(vec(t[1]), vec(t[1]), vec(t[2]));  // s12
    const int d34 = t[2];
    vsubps(vec(d34), vec(t[3]), vec(t[4]));
    vaddps(vec(t[3]), vec(t[3]), vec(t[4]));  // s34
    const int d56 = t[4];
    vsubps(vec(d56), vec(t[5]), vec(t[6]));
    vaddps(vec(t[5]), vec(t[5]), vec(t[6]));  // s56
    const int s12 = t[1], s34 = t[3], s56 = t[5], spare = t[6];
    vaddps(vec(t[0]), vec(t[0]), vec(s12));
    vaddps(vec(t[0]), vec(t[0]), vec(s34));
    vaddps(vec(t[0]), vec(t[0]), vec(s56));
    put(0, t[0]);
    vaddps(vec(t[7]), vec(d12), vec(t[7]));  // y5
    vfmadd231ps(vec(t[7]), vec(d34), constant(kC32));
    vfmadd231ps(vec(t[7]), vec(d56), constant(kC0_03125));
    put(5, t[7]);
    vmovaps(vec(spare), vec(d12));  // y3
    vfmadd231ps(vec(spare), vec(d34), constant(kC8));
    vfmadd231ps(vec(spare), vec(d56), constant(kC0_125));
    put(3, spare);
    vfmadd231ps(vec(d12), vec(d34), constant(kC2));  // y1
    vfmadd231ps(vec(d12), vec(d56), constant(kC0_5));
    put(1, d12);
    vmovaps(vec(t[0]), vec(s12));  // y2 (t0 is stored and free)
    vfmadd231ps(vec(t[0]), vec(s34), constant(kC4));
    vfmadd231ps(vec(t[0]), vec(s56), constant(kC0_25));
    put(2, t[0]);
    vfmadd231ps(vec(s12), vec(s34), constant(kC16));  // y4
    vfmadd231ps(vec(s12), vec(s56), constant(kC0_0625));
    put(4, s12);
    give(d12);
    for (int reg : t) give(reg);
  };

  tile_loop([&] {
    mov(row_hi, ptr[reg_args + offsetof(WinogradTransformArgs, dst_stride)]);
    mov(out_rows[0], dst);
    for (int r = 1; r < 6; r++) lea(out_rows[r], ptr[out_rows[r - 1] + row_hi]);
    for (const std::vector<int>& group : output_groups(6)) {
      mov(row_lo, src);
      rows_then_columns(
          A, group,
          [&](int i) {
            if (i > 0) lea(row_lo, ptr[row_lo + s1 * 8]);
            lea(row_hi, ptr[row_lo + s1 * 4]);
            return row_columns(group[0] == 0);  // even outputs: pair sums
          },
          column_out);
    }
  });
  postamble();
  emit_table();
  activation_.emit_table();
}

}  // namespace jitconv
