#include "runtime/layers/detection_util.h"

#include <algorithm>
#include <climits>
#include <cstring>

#include "runtime/layers/data_shape.h"

namespace jitconv {
namespace layers {

namespace {

float intersection_area(const DetectionBox& a, const DetectionBox& b) {
  if (a.xmin > b.xmax || a.xmax < b.xmin || a.ymin > b.ymax || a.ymax < b.ymin) return 0.f;
  const float inter_w = std::min(a.xmax, b.xmax) - std::max(a.xmin, b.xmin);
  const float inter_h = std::min(a.ymax, b.ymax) - std::max(a.ymin, b.ymin);
  return inter_w * inter_h;
}

// Hoare's quicksort, descending, the middle element as pivot and equal scores swapped
// across it: the partition scheme ncnn's heads sort with, so equal scores end up in the
// same order as there. An explicit stack of ranges, not recursion: a hostile input of many
// equal-ish scores cannot exhaust the call stack.
void quicksort_descending(std::vector<DetectionBox>& boxes) {
  if (boxes.size() < 2) return;
  std::vector<std::pair<long, long>> ranges = {{0, static_cast<long>(boxes.size()) - 1}};
  while (!ranges.empty()) {
    const long left = ranges.back().first, right = ranges.back().second;
    ranges.pop_back();
    long i = left, j = right;
    const float pivot = boxes[(left + right) / 2].score;
    while (i <= j) {
      while (boxes[i].score > pivot) i++;
      while (boxes[j].score < pivot) j--;
      if (i <= j) std::swap(boxes[i++], boxes[j--]);
    }
    // The ranges are disjoint: the order they are done in changes nothing.
    if (i < right) ranges.emplace_back(i, right);
    if (left < j) ranges.emplace_back(left, j);
  }
}

}  // namespace

void sort_by_score(std::vector<DetectionBox>& boxes) { quicksort_descending(boxes); }

void keep_best(std::vector<DetectionBox>& boxes, size_t count) {
  sort_by_score(boxes);
  if (count < boxes.size()) boxes.resize(count);
}

std::vector<DetectionBox> suppress(const std::vector<DetectionBox>& sorted, float threshold, OverlapTest test) {
  std::vector<DetectionBox> kept;
  for (const DetectionBox& box : sorted) {
    bool keep = true;
    for (const DetectionBox& other : kept) {
      const float inter = intersection_area(box, other);
      const float uni = box.area + other.area - inter;
      if (test == OverlapTest::ratio ? inter / uni > threshold : inter > threshold * uni) {
        keep = false;
        break;
      }
    }
    if (keep) kept.push_back(box);
  }
  return kept;
}

Mat detection_rows(const std::vector<DetectionBox>& boxes, int label_offset, Allocator* allocator) {
  if (boxes.empty()) return Mat();
  Mat rows(6, static_cast<int>(boxes.size()), 4u, 1, allocator);
  for (size_t i = 0; i < boxes.size(); i++) {
    float* row = rows.row(static_cast<int>(i));
    const DetectionBox& b = boxes[i];
    row[0] = static_cast<float>(b.label + label_offset);
    row[1] = b.score;
    row[2] = b.xmin;
    row[3] = b.ymin;
    row[4] = b.xmax;
    row[5] = b.ymax;
  }
  return rows;
}

const float* dense_scalars(const Mat& m, std::vector<float>& storage) {
  const size_t plane = m.dims >= 3 ? static_cast<size_t>(m.w) * m.h * m.d : static_cast<size_t>(m.w) * m.h;
  if (m.dims <= 2 || m.c == 1 || m.cstep == plane) return static_cast<const float*>(m.data);
  storage.resize(plane * m.c);
  for (int q = 0; q < m.c; q++)
    memcpy(storage.data() + plane * q, static_cast<const float*>(m.data) + m.cstep * q, plane * sizeof(float));
  return storage.data();
}

void check_yolo_counts(const Layer& layer, int num_class, int num_box) {
  if (num_class <= 0 || num_box <= 0)
    layer_fail(layer, "num_class (param 0) and num_box (param 1) must be positive, got ", num_class, " and ", num_box);
  if (static_cast<long long>(num_box) * (5LL + num_class) > INT_MAX)
    layer_fail(layer, num_box, " boxes x (5 + ", num_class, " classes) channels exceed ", INT_MAX);
}

void check_yolo_map(const Layer& layer, const Mat& map, size_t index, int num_class, int num_box) {
  if (map.dims != 3 || map.elempack != 1 || lane_bytes(map) != 4)
    layer_fail(layer, "input ", index, " must be a 3-D fp32 blob of elempack 1");
  const long channels_per_box = 5L + num_class;
  if (map.c / num_box != channels_per_box)
    layer_fail(layer, "input ", index, " has ", map.c, " channels, ", num_box, " boxes x (5 + ", num_class,
               " classes) need ", num_box * channels_per_box, " (to ", num_box * channels_per_box + num_box - 1, ")");
}

}  // namespace layers
}  // namespace jitconv
