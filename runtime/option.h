// Run-time options, with ncnn's defaults (ncnn/src/option.cpp) unless noted.
#pragma once

namespace jitconv {

class Allocator;

int default_num_threads();  // physical cores, as ncnn's get_physical_big_cpu_count()

struct Option {
  Option();

  // Release intermediate blobs as soon as their last consumer has run.
  bool lightmode = true;
  int num_threads = 1;
  Allocator* blob_allocator = nullptr;       // for blobs passed between layers
  Allocator* workspace_allocator = nullptr;  // for per-forward scratch (padding, im2col)
  // ncnn's default: with no workspace_allocator / blob_allocator given, a Net's Extractors
  // take their scratch and the blobs between layers from two pools the Net owns, so a
  // forward reuses the blocks of the previous one instead of getting fresh pages from the
  // system (a page fault per 4 KB on each use: Winograd's transformed tiles at two threads,
  // 128@28, ran 2.6x slower through malloc; blobs went back to the system and were
  // faulted in again on every forward whenever glibc's heap trimming struck). What extract
  // returns is never pool memory (copied out where it would be), so it may outlive its Net.
  bool use_local_pool_allocator = true;

  bool use_packing_layout = true;  // elempack 4/8/16 between layers
  bool use_winograd_convolution = true;
  bool use_winograd23_convolution = true;
  bool use_winograd43_convolution = true;
  bool use_winograd53_convolution = true;  // F(5,3), 7x7 tiles: outputs that 5 covers tighter (14x14)
  bool use_winograd63_convolution = true;
  bool use_sgemm_convolution = true;
  bool use_int8_inference = true;
  // ncnn enables fp16 storage by default. Here (as in ncnn's x86 build) it makes
  // InnerProduct keep fp16 weights on F16C CPUs; the Net never casts fp32 blobs down, and
  // 16-bit blobs a custom layer produces are read as fp16 (as bf16 whenever use_bf16_storage
  // is on, as ncnn's x86 build reads them) by the layers that declare support for them.
  bool use_fp16_storage = true;
  bool use_bf16_storage = false;

  // jitconv: time each applicable convolution path at create_pipeline and keep the
  // fastest (also JITCONV_AUTOTUNE=1). Off by default: ncnn-style table choice.
  bool use_autotune = false;
  // jitconv: the weights will not stay in cache between forwards (a network larger than
  // the cache), so convolution paths are chosen for weights streaming from memory. The
  // Net sets it from the model's size (runtime/net.cpp); false for single layers unless
  // JITCONV_WEIGHTS_COLD=1 (to benchmark the cold choices layer by layer).
  bool weights_cold = false;
  // jitconv: at load_model the Net fuses Convolution -> Eltwise sum [-> ReLU] into the
  // convolution (its kernels add the shortcut before the activation: one pass over the
  // output instead of three). The fused-away blobs cannot be extracted; turn it off to
  // inspect them (or JITCONV_RESIDUAL_FUSION=0).
  bool use_residual_fusion = true;
};

}  // namespace jitconv
