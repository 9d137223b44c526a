// Pieces shared by the detection heads (DetectionOutput, YoloDetectionOutput,
// Yolov3DetectionOutput): candidate boxes, a deterministic sort, greedy NMS and ncnn's
// [label, score, xmin, ymin, xmax, ymax] result rows.
#pragma once
#include <cstddef>
#include <vector>

#include "runtime/layer.h"
#include "runtime/mat.h"

namespace jitconv {
namespace layers {

struct DetectionBox {
  float score;
  float xmin, ymin, xmax, ymax;
  float area;  // how each head measures it, see nms()
  int label;
};

// Descending score, equal scores in the order ncnn's quicksort leaves them (not stable:
// with quantized scores, ties decide which box NMS and the top-k cuts keep, and those
// must be ncnn's). NaN scores never get here (the heads drop them).
void sort_by_score(std::vector<DetectionBox>& boxes);
// The first `count` boxes after sort_by_score (ncnn sorts all, then truncates).
void keep_best(std::vector<DetectionBox>& boxes, size_t count);

// How a box counts as overlapping a kept one: ncnn's SSD and YOLOv2 heads test
// inter / union > threshold, its YOLOv3 head inter > threshold * union (equal but for
// rounding, and for union 0, where the first never suppresses and the second may).
enum class OverlapTest { ratio, product };

// Greedy non-maximum suppression over boxes sorted by score: a box survives unless it
// overlaps an earlier survivor. Returns the survivors in order.
std::vector<DetectionBox> suppress(const std::vector<DetectionBox>& sorted, float threshold, OverlapTest test);

// num x 6 rows [label + label_offset, score, xmin, ymin, xmax, ymax]; an empty Mat when
// there is nothing to report (as ncnn's DetectionOutput and YOLOv3 head; its in-place
// YOLOv2 head then leaves its softmaxed input in the output blob instead).
Mat detection_rows(const std::vector<DetectionBox>& boxes, int label_offset, Allocator* allocator);

// The YOLO heads' num_class (param 0) and num_box (param 1): positive, and a map's
// num_box * (5 + num_class) channels within an int (forward counts them in int).
void check_yolo_counts(const Layer& layer, int num_class, int num_box);
// A YOLO head's input map `index`: 3-D fp32 of elempack 1 whose channels / num_box is
// 5 + num_class, as ncnn tests it (spare channels after the boxes' are not read).
void check_yolo_map(const Layer& layer, const Mat& map, size_t index, int num_class, int num_box);

// An fp32 elempack-1 blob's scalars in (c, d, h, w) order without channel padding: the
// blob itself when it is already dense, else a copy into `storage`.
const float* dense_scalars(const Mat& m, std::vector<float>& storage);

}  // namespace layers
}  // namespace jitconv
