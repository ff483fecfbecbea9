// The part of gpucc-cache that LLVM's plugin API forces into C++:
// registering pipeline callbacks with the new pass manager, the module pass
// object itself, and optimization remarks. Everything it does is decided in
// Rust (pass/src/plugin.rs); this file only forwards.

#include "llvm-c/Types.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Instruction.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/ErrorHandling.h"

#include <string>

extern "C" {
int gpucc_pipeline_element(const char *name, size_t len, char **error);
int gpucc_run_on_module(LLVMModuleRef module, int mode, const char *params, size_t len, char **error);
void gpucc_free_string(char *s);
}

namespace {

constexpr int NotOurs = -1;
constexpr int FromExtensionPoint = 100;

[[noreturn]] void fail(char *err, const char *fallback) {
  // While the pipeline is parsed there is no module to attach a diagnostic
  // to: one line and exit code 1, no crash report (the message already says
  // what is wrong with the input).
  std::string msg = std::string("gpucc-cache: ") + (err ? err : fallback);
  gpucc_free_string(err);
  llvm::report_fatal_error(llvm::Twine(msg), /*gen_crash_diag=*/false);
}

struct GpuccCachePass : llvm::PassInfoMixin<GpuccCachePass> {
  int Mode;
  std::string Element;

  GpuccCachePass(int Mode, std::string Element) : Mode(Mode), Element(std::move(Element)) {}

  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &) {
    char *err = nullptr;
    int changed = gpucc_run_on_module(llvm::wrap(&M), Mode, Element.data(), Element.size(), &err);
    if (changed < 0) {
      // An error diagnostic: clang prints `error: gpucc-cache: ...` and
      // fails the compile; opt prints it and exits 1. No crash report.
      std::string msg = std::string("gpucc-cache: ") + (err ? err : "the pass failed");
      gpucc_free_string(err);
      M.getContext().emitError(llvm::Twine(msg));
      return llvm::PreservedAnalyses::all();
    }
    return changed ? llvm::PreservedAnalyses::none() : llvm::PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

} // namespace

extern "C" void gpucc_register_callbacks(void *builder) {
  auto &PB = *static_cast<llvm::PassBuilder *>(builder);
  PB.registerPipelineParsingCallback(
      [](llvm::StringRef Name, llvm::ModulePassManager &MPM,
         llvm::ArrayRef<llvm::PassBuilder::PipelineElement>) {
        char *err = nullptr;
        int mode = gpucc_pipeline_element(Name.data(), Name.size(), &err);
        if (mode == NotOurs)
          return false;
        if (mode < 0)
          fail(err, "bad pass parameters");
        MPM.addPass(GpuccCachePass(mode, Name.str()));
        return true;
      });
  // Under clang -fpass-plugin: after the optimization pipeline, on device
  // modules only (the Rust side checks the triple).
  PB.registerOptimizerLastEPCallback(
      [](llvm::ModulePassManager &MPM, llvm::OptimizationLevel) {
        MPM.addPass(GpuccCachePass(FromExtensionPoint, ""));
      });
}

// A remark about a load, emitted after the lowering (which may have erased
// the load): `loc` is the load's DILocation as it was before (null: none),
// `block` the block it was in.
extern "C" void gpucc_emit_remark(LLVMMetadataRef loc, LLVMBasicBlockRef block, const char *name,
                                  const char *message, int missed) {
  auto *BB = llvm::unwrap(block);
  llvm::DiagnosticLocation Where(llvm::DebugLoc(llvm::cast_or_null<llvm::DILocation>(llvm::unwrap(loc))));
  llvm::OptimizationRemarkEmitter ORE(BB->getParent());
  if (missed)
    ORE.emit(llvm::OptimizationRemarkMissed("gpucc-cache", name, Where, BB) << message);
  else
    ORE.emit(llvm::OptimizationRemark("gpucc-cache", name, Where, BB) << message);
}
