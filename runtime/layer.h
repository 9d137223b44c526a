// Layer: one operator of a network, with ncnn's life cycle.
//
//   load_param(pd)        read the .param line's key=value pairs
//   load_model(mb)        read weights from the .bin
//   create_pipeline(opt)  choose paths, transform weights, generate kernels (once)
//   forward(...)          run; const, so several extractors may run one layer at once
//   destroy_pipeline(opt) release what create_pipeline made
//
// Errors are thrown as jitconv::Error; the Net adds the layer's name and line.
#pragma once
#include <string>
#include <vector>

#include "loader/model_bin.h"
#include "loader/param_dict.h"
#include "runtime/mat.h"
#include "runtime/option.h"

namespace jitconv {

class Layer {
 public:
  Layer() = default;
  virtual ~Layer() = default;
  Layer(const Layer&) = delete;
  Layer& operator=(const Layer&) = delete;

  virtual void load_param(const ParamDict& pd) {}
  virtual void load_model(const ModelBin& mb) {}
  virtual void create_pipeline(const Option& opt) {}
  virtual void destroy_pipeline(const Option& opt) {}

  // Multi-blob form; the default forwards to the one-blob form when one_blob_only.
  virtual void forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const;
  virtual void forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const;
  virtual void forward_inplace(std::vector<Mat>& blobs, const Option& opt) const;
  virtual void forward_inplace(Mat& blob, const Option& opt) const;

  // What create_pipeline chose, for profiles and `jitconv dump` (path, kernels); empty
  // for layers without choices.
  virtual std::string describe() const { return std::string(); }
  // Bytes held by transformed weights (and kept originals) after create_pipeline.
  virtual size_t weight_bytes() const { return 0; }

  bool one_blob_only = false;
  bool support_inplace = false;
  // Accepts and produces elempack > 1 blobs.
  bool support_packing = false;
  bool support_fp16_storage = false;
  bool support_bf16_storage = false;
  bool support_int8_storage = false;

  std::string type;
  std::string name;
  int line = 0;  // line of the .param file (0 when built in code)
  std::vector<int> bottoms;
  std::vector<int> tops;
  // Shapes known before running (from -23330 hints or shape inference); may be empty.
  std::vector<Mat> bottom_shapes;
  std::vector<Mat> top_shapes;
};

}  // namespace jitconv
