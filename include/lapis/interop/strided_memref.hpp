// StridedMemRefType<T, N>: MLIR's strided memref descriptor, the type LAPIS's extern "C" entry points
// take and return. It is MLIR's own (mlir/ExecutionEngine/CRunnerUtils.h) wherever that header can
// be found or was included first, so that both spellings are one type in one translation unit;
// elsewhere lapis declares it with the same layout (rank 0: no sizes or strides), at global scope,
// where MLIR and the emitted code name it.
#pragma once

#include <cstdint>

#if !defined(MLIR_EXECUTIONENGINE_CRUNNERUTILS_H) && __has_include(<mlir/ExecutionEngine/CRunnerUtils.h>)
#include <mlir/ExecutionEngine/CRunnerUtils.h>
#endif

#if !defined(MLIR_EXECUTIONENGINE_CRUNNERUTILS_H) && !defined(LAPIS_STRIDED_MEMREF_TYPE_DECLARED)
#define LAPIS_STRIDED_MEMREF_TYPE_DECLARED
template <typename T, int N>
struct StridedMemRefType {
  T* basePtr;
  T* data;
  int64_t offset;
  int64_t sizes[N];
  int64_t strides[N];
};
template <typename T>
struct StridedMemRefType<T, 0> {
  T* basePtr;
  T* data;
  int64_t offset;
};
#endif
