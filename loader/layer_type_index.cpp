#include "loader/layer_type_index.h"

#include <iterator>

namespace jitconv {

namespace {

// Position = ncnn type index; six per row (row r starts at index 6r).
const char* const kNcnnLayerTypes[] = {
    "AbsVal", "ArgMax", "BatchNorm", "Bias", "BNLL", "Concat",
    "Convolution", "Crop", "Deconvolution", "Dropout", "Eltwise", "ELU",
    "Embed", "Exp", "Flatten", "InnerProduct", "Input", "Log",
    "LRN", "MemoryData", "MVN", "Pooling", "Power", "PReLU",
    "Proposal", "Reduction", "ReLU", "Reshape", "ROIPooling", "Scale",
    "Sigmoid", "Slice", "Softmax", "Split", "SPP", "TanH",
    "Threshold", "Tile", "RNN", "LSTM", "BinaryOp", "UnaryOp",
    "ConvolutionDepthWise", "Padding", "Squeeze", "ExpandDims", "Normalize", "Permute",
    "PriorBox", "DetectionOutput", "Interp", "DeconvolutionDepthWise", "ShuffleChannel", "InstanceNorm",
    "Clip", "Reorg", "YoloDetectionOutput", "Quantize", "Dequantize", "Yolov3DetectionOutput",
    "PSROIPooling", "ROIAlign", "Packing", "Requantize", "Cast", "HardSigmoid",
    "SELU", "HardSwish", "Noop", "PixelShuffle", "DeepCopy", "Mish",
    "StatisticsPooling", "Swish", "Gemm", "GroupNorm", "LayerNorm", "Softplus",
    "GRU", "MultiHeadAttention", "GELU", "Convolution1D", "Pooling1D", "ConvolutionDepthWise1D",
    "Convolution3D", "ConvolutionDepthWise3D", "Pooling3D", "MatMul", "Deconvolution1D", "DeconvolutionDepthWise1D",
    "Deconvolution3D", "DeconvolutionDepthWise3D", "Einsum", "DeformableConv2D", "GLU", "Fold",
    "Unfold", "GridSample", "CumulativeSum",
};

}  // namespace

const char* ncnn_layer_type_name(int type_index) {
  if (type_index < 0 || type_index >= ncnn_layer_type_count()) return nullptr;
  return kNcnnLayerTypes[type_index];
}

int ncnn_layer_type_index(const std::string& type) {
  for (int i = 0; i < ncnn_layer_type_count(); i++)
    if (type == kNcnnLayerTypes[i]) return i;
  return -1;
}

int ncnn_layer_type_count() { return static_cast<int>(std::size(kNcnnLayerTypes)); }

}  // namespace jitconv
