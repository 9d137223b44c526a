// The candidate list, sort and NMS the detection-head references share: the plainest
// form of ncnn's steps (its quicksort, whose order of equal scores decides ties;
// pairwise suppression).
#pragma once
#include <algorithm>
#include <vector>

#include "runtime/mat.h"

namespace jitconv {
namespace reference_layers {

struct RefBox {
  float score;
  float x0, y0, x1, y1;
  float area;
  int label;
};

// Descending score by Hoare's partition around the middle element, equal elements
// swapped across it, recursing left then right: ncnn's qsort_descent_inplace, whose
// order of equal scores is part of the result.
inline void sort_descending_range(std::vector<RefBox>& boxes, int left, int right) {
  int i = left, j = right;
  const float pivot = boxes[(left + right) / 2].score;
  while (i <= j) {
    while (boxes[i].score > pivot) i++;
    while (boxes[j].score < pivot) j--;
    if (i <= j) std::swap(boxes[i++], boxes[j--]);
  }
  if (left < j) sort_descending_range(boxes, left, j);
  if (i < right) sort_descending_range(boxes, i, right);
}

inline void sort_descending(std::vector<RefBox>& boxes) {
  if (boxes.size() > 1) sort_descending_range(boxes, 0, static_cast<int>(boxes.size()) - 1);
}

inline float overlap_area(const RefBox& a, const RefBox& b) {
  if (a.x0 > b.x1 || a.x1 < b.x0 || a.y0 > b.y1 || a.y1 < b.y0) return 0.f;
  return (std::min(a.x1, b.x1) - std::max(a.x0, b.x0)) * (std::min(a.y1, b.y1) - std::max(a.y0, b.y0));
}

// ratio_test: inter / union > threshold (SSD, YOLOv2); else inter > threshold * union (YOLOv3).
inline std::vector<RefBox> nms(const std::vector<RefBox>& sorted, float threshold, bool ratio_test) {
  std::vector<RefBox> kept;
  for (const RefBox& a : sorted) {
    bool keep = true;
    for (const RefBox& b : kept) {
      const float inter = overlap_area(a, b), uni = a.area + b.area - inter;
      if (ratio_test ? inter / uni > threshold : inter > threshold * uni) keep = false;
    }
    if (keep) kept.push_back(a);
  }
  return kept;
}

inline Mat result_rows(const std::vector<RefBox>& boxes, int label_offset) {
  if (boxes.empty()) return Mat();
  Mat out(6, static_cast<int>(boxes.size()));
  for (size_t i = 0; i < boxes.size(); i++) {
    float* row = out.row(static_cast<int>(i));
    const RefBox& b = boxes[i];
    row[0] = static_cast<float>(b.label + label_offset);
    row[1] = b.score;
    row[2] = b.x0;
    row[3] = b.y0;
    row[4] = b.x1;
    row[5] = b.y1;
  }
  return out;
}

}  // namespace reference_layers
}  // namespace jitconv
