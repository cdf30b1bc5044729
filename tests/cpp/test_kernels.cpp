// The kernels' lapis::DualView overloads: inputs' device sides are read (synced by their policy),
// the output's device side is overwritten without any upload; on both devices.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "lapis/kernels.hpp"
#include "support.hpp"

namespace {

using lapis::test::apart;
using lapis::test::set_device_value;

template <class Device>
class KernelTest : public ::testing::Test {};
TYPED_TEST_SUITE(KernelTest, lapis::test::Devices);

template <class Device>
using Matrix = lapis::DualView<double**, Kokkos::LayoutRight, Device>;

template <class DV>
void set_host(DV& dv, double start) {
  auto h = dv.view_host();
  for (std::size_t i = 0; i < h.extent(0); ++i)
    for (std::size_t j = 0; j < h.extent(1); ++j) h(i, j) = start + i * h.extent(1) + j;
  dv.modify_host();
}

TYPED_TEST(KernelTest, GemmReadsInputsOnceAndNeverUploadsTheOutput) {
  Matrix<TypeParam> a("a", 2, 3), b("b", 3, 2), c("c", 2, 2);
  set_host(a, 1);  // [[1 2 3] [4 5 6]]
  set_host(b, 1);  // [[1 2] [3 4] [5 6]]
  set_host(c, 0);  // pending host changes to c are discarded, never uploaded
  lapis::kernels::gemm(a, b, c);
  lapis::kernels::gemm(a, b, c);
  EXPECT_EQ(a.transfers().h2d_count, apart<TypeParam> ? 1u : 0u);
  EXPECT_EQ(c.transfers().h2d_count, 0u);
  c.sync_host();
  auto h = c.view_host();
  EXPECT_EQ(h(0, 0), 22.0);
  EXPECT_EQ(h(0, 1), 28.0);
  EXPECT_EQ(h(1, 0), 49.0);
  EXPECT_EQ(h(1, 1), 64.0);
  EXPECT_EQ(c.transfers().d2h_count, apart<TypeParam> ? 1u : 0u);
}

TYPED_TEST(KernelTest, MataddAndDotChainOnTheDevice) {
  Matrix<TypeParam> a("a", 3, 3), s("s", 3, 3);
  set_host(a, 0);
  lapis::kernels::matadd(a, a, s);
  s.sync_host();
  auto h = s.view_host();
  EXPECT_EQ(h(2, 2), 16.0);
  lapis::DualView<float*, Kokkos::LayoutRight, TypeParam> x("x", 4);
  for (int i = 0; i < 4; ++i) x.view_host()(i) = float(i);
  x.modify_host();
  EXPECT_EQ(lapis::kernels::dot(x, x), 14.0f);
}

// Scalars as values and as rank-0 DualViews (read on the device), results in place, and dot and
// norm2 into rank-0 DualViews: a resident CG step moves nothing.
TYPED_TEST(KernelTest, ElementwiseKernelsTakeDeviceScalarsAndUpdateInPlace) {
  using Vector = lapis::DualView<double*, Kokkos::LayoutRight, TypeParam>;
  using Scalar = lapis::DualView<double, Kokkos::LayoutRight, TypeParam>;
  Vector x("x", 4), y("y", 4);
  for (int i = 0; i < 4; ++i) {
    x.view_host()(i) = i + 1.0;  // 1 2 3 4
    y.view_host()(i) = 1.0;
  }
  x.modify_host();
  y.modify_host();
  x.sync_device();
  y.sync_device();
  const lapis::TransferStats before = lapis::process_transfer_stats();
  Scalar xy("xy"), norm("norm"), ratio("ratio");
  lapis::kernels::dot(x, y, xy);            // 10
  lapis::kernels::norm2(y, norm);           // 2
  lapis::kernels::divide(xy, norm, ratio);  // 5
  const double half = 0.5;
  lapis::kernels::axpby(ratio, x, half, y, y);  // y = 5 x + 0.5 y, in place
  lapis::kernels::multiply(y, 2, y);            // and doubled
  lapis::kernels::subtract(y, ratio, y);        // minus 5
  EXPECT_EQ(lapis::process_transfer_stats() - before, lapis::TransferStats{});
  y.sync_host();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(y.view_host()(i), 2 * (5 * (i + 1.0) + 0.5) - 5) << i;
  ratio.sync_host();
  EXPECT_EQ(ratio.view_host()(), 5.0);
  EXPECT_EQ(lapis::kernels::norm2(x), std::sqrt(30.0));
  Vector wrong("wrong", 3);
  EXPECT_THROW(lapis::kernels::add(x, wrong, y), std::invalid_argument);
  EXPECT_THROW(lapis::kernels::add(x, 1.0, wrong), std::invalid_argument);
}

// A + B for canonical CSR matrices: the union of the structures, sorted, summed where they meet;
// an unsorted row is refused.
TYPED_TEST(KernelTest, SparseMataddMergesRowsOnTheDevice) {
  using Index = lapis::DualView<std::int64_t*, Kokkos::LayoutRight, TypeParam>;
  using Values = lapis::DualView<double*, Kokkos::LayoutRight, TypeParam>;
  const auto filled = [](auto dv, std::vector<double> values) {
    for (std::size_t i = 0; i < values.size(); ++i) dv.view_host()(i) = values[i];
    dv.modify_host();
    return dv;
  };
  // A = [[1 0 2] [0 0 0]], B = [[0 3 4] [5 0 0]]
  auto ap = filled(Index("ap", 3), {0, 2, 2}), ai = filled(Index("ai", 2), {0, 2});
  auto bp = filled(Index("bp", 3), {0, 2, 3}), bi = filled(Index("bi", 3), {1, 2, 0});
  auto ad = filled(Values("ad", 2), {1, 2}), bd = filled(Values("bd", 3), {3, 4, 5});
  auto c = lapis::kernels::sparse_matadd(ap, ai, ad, bp, bi, bd, 2, 3);
  c.indptr.sync_host();
  c.indices.sync_host();
  c.data.sync_host();
  ASSERT_EQ(c.indices.extent(0), 4u);
  const std::int64_t indptr[] = {0, 3, 4}, indices[] = {0, 1, 2, 0};
  const double data[] = {1, 3, 6, 5};
  for (int i = 0; i < 3; ++i) EXPECT_EQ(c.indptr.view_host()(i), indptr[i]);
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(c.indices.view_host()(k), indices[k]);
    EXPECT_EQ(c.data.view_host()(k), data[k]);
  }
  auto unsorted = filled(Index("unsorted", 3), {2, 1, 0});
  EXPECT_THROW(lapis::kernels::sparse_matadd(ap, ai, ad, bp, unsorted, bd, 2, 3), std::invalid_argument);
}

// The same checks as the Python bindings, which call these: mismatched extents throw before
// anything is read or written.
TYPED_TEST(KernelTest, MismatchedExtentsThrowBeforeAnythingMoves) {
  Matrix<TypeParam> a("a", 2, 3), b("b", 2, 3), c("c", 2, 2), wide("wide", 2, 3);
  set_host(a, 1);
  EXPECT_THROW(lapis::kernels::gemm(a, b, c), std::invalid_argument);       // a's columns != b's rows
  EXPECT_THROW(lapis::kernels::matadd(a, b, c), std::invalid_argument);     // out has another shape
  EXPECT_THROW(lapis::kernels::matadd(a, c, wide), std::invalid_argument);  // inputs differ
  lapis::DualView<double***, Kokkos::LayoutRight, TypeParam> x("x", 2, 2, 3), y("y", 2, 3, 2), z("z", 2, 2, 3);
  EXPECT_THROW(lapis::kernels::batched_gemm(x, y, z), std::invalid_argument);
  lapis::DualView<double*, Kokkos::LayoutRight, TypeParam> u("u", 3), v("v", 4);
  EXPECT_THROW(lapis::kernels::dot(u, v), std::invalid_argument);
  lapis::DualView<double****, Kokkos::LayoutRight, TypeParam> image("image", 1, 1, 5, 5), pooled("pooled", 1, 1, 4, 4);
  EXPECT_THROW(lapis::kernels::maxpool_nchw(image, pooled, lapis::kernels::Pool2d{}), std::invalid_argument);
  try {
    lapis::kernels::gemm(a, b, c);
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "gemm: shapes (2, 3) and (2, 3) do not align (a.shape[1] != b.shape[0])");
  }
  EXPECT_TRUE(a.need_sync_device());  // nothing was synced
  EXPECT_EQ(a.transfers().h2d_count, 0u);
}

TYPED_TEST(KernelTest, SpmvRejectsBadStructure) {
  lapis::DualView<int*, Kokkos::LayoutRight, TypeParam> indptr("p", 3), indices("j", 2);
  lapis::DualView<double*, Kokkos::LayoutRight, TypeParam> data("d", 2), x("x", 2), y("y", 2);
  auto p = indptr.view_host();
  p(0) = 0, p(1) = 1, p(2) = 2;
  indptr.modify_host();
  auto j = indices.view_host();
  j(0) = 1, j(1) = 7;  // 7 is out of range
  indices.modify_host();
  for (int i = 0; i < 2; ++i) data.view_host()(i) = 2.0, x.view_host()(i) = i + 1.0;
  data.modify_host();
  x.modify_host();
  EXPECT_THROW(lapis::kernels::spmv_csr(indptr, indices, data, x, y), std::invalid_argument);  // y unspecified
  lapis::DualView<double*, Kokkos::LayoutRight, TypeParam> three_rows("y3", 3);
  EXPECT_THROW(lapis::kernels::spmv_csr(indptr, indices, data, x, three_rows), std::invalid_argument);  // indptr: 3
  j = indices.view_host();
  j(1) = 0;
  indices.modify_host();
  lapis::kernels::spmv_csr(indptr, indices, data, x, y);
  y.sync_host();
  EXPECT_EQ(y.view_host()(0), 4.0);
  EXPECT_EQ(y.view_host()(1), 2.0);
}

// Launches of spmv's checking pass and of its pass for a structure checked before (Kokkos Tools).
int checking_passes = 0, trusting_passes = 0;

// A structure found valid is not checked again, and so not waited for, until one of its arrays is
// written; a structure whose memory was handed out is checked at every call.
TYPED_TEST(KernelTest, SpmvChecksAStructureOnceUntilItChanges) {
  using Index = lapis::DualView<int*, Kokkos::LayoutRight, TypeParam>;
  using Vector = lapis::DualView<double*, Kokkos::LayoutRight, TypeParam>;
  checking_passes = trusting_passes = 0;
  Kokkos::Tools::Experimental::set_begin_parallel_reduce_callback([](const char* name, std::uint32_t, std::uint64_t*) {
    if (std::string(name) == "lapis::spmv_csr") ++checking_passes;
  });
  Kokkos::Tools::Experimental::set_begin_parallel_for_callback([](const char* name, std::uint32_t, std::uint64_t*) {
    if (std::string(name) == "lapis::spmv_csr(checked before)") ++trusting_passes;
  });
  // Filled by copies from staging DualViews (lapis::deep_copy), whose views are not handed out.
  Index indptr("p", 3), indices("j", 2), staging_p("staging p", 3), staging_j("staging j", 2);
  Vector data("d", 2), x("x", 2), y("y", 2);
  staging_p.view_host()(1) = 1, staging_p.view_host()(2) = 2;  // [0 1 2]
  staging_p.modify_host();
  lapis::deep_copy(indptr, staging_p);
  const auto set_indices = [&](int first, int second) {
    staging_j.view_host()(0) = first, staging_j.view_host()(1) = second;
    staging_j.modify_host();
    lapis::deep_copy(indices, staging_j);
  };
  set_indices(1, 0);
  for (int i = 0; i < 2; ++i) data.view_host()(i) = 2.0, x.view_host()(i) = i + 1.0;
  data.modify_host();
  x.modify_host();
  for (int call = 0; call < 3; ++call) lapis::kernels::spmv_csr(indptr, indices, data, x, y);
  EXPECT_EQ(checking_passes, 1);
  EXPECT_EQ(trusting_passes, 2);
  y.sync_host();
  EXPECT_EQ(y.view_host()(0), 4.0);
  EXPECT_EQ(y.view_host()(1), 2.0);

  set_indices(1, 7);  // a new version, out of range: checked again
  EXPECT_THROW(lapis::kernels::spmv_csr(indptr, indices, data, x, y), std::invalid_argument);
  EXPECT_EQ(checking_passes, 2);
  set_indices(0, 1);
  lapis::kernels::spmv_csr(indptr, indices, data, x, y);
  lapis::kernels::spmv_csr(indptr, indices, data, x, y);
  EXPECT_EQ(checking_passes, 3);
  EXPECT_EQ(trusting_passes, 3);

  auto kept = indices.view_device();  // may be written at any time, unseen: checked at every call
  lapis::kernels::spmv_csr(indptr, indices, data, x, y);
  EXPECT_EQ(checking_passes, 4);
  set_device_value(kept, 1, 9);  // no mark, as a module writing its view might
  EXPECT_THROW(lapis::kernels::spmv_csr(indptr, indices, data, x, y), std::invalid_argument);
  EXPECT_EQ(checking_passes, 5);
  EXPECT_EQ(trusting_passes, 3);
  Kokkos::Tools::Experimental::set_begin_parallel_reduce_callback(nullptr);
  Kokkos::Tools::Experimental::set_begin_parallel_for_callback(nullptr);
}

// A DualView holding `values`, copied in from a staging DualView (lapis::deep_copy), so that no view
// of it is handed out and lapis sees every write of it.
template <class DV>
DV copied_in(const std::string& label, const std::vector<typename DV::non_const_value_type>& values) {
  DV staging("staging", values.size()), result(label, values.size());
  for (std::size_t i = 0; i < values.size(); ++i) staging.view_host()(i) = values[i];
  staging.modify_host();
  lapis::deep_copy(result, staging);
  return result;
}

// An output that is the structure's own memory rewrites it: the next product checks it again.
TYPED_TEST(KernelTest, SpmvWritingItsOwnStructureHasItCheckedAgain) {
  using Index = lapis::DualView<std::int64_t*, Kokkos::LayoutRight, TypeParam>;
  auto indptr = copied_in<Index>("p", {0, 1, 2}), indices = copied_in<Index>("j", {1, 0});
  auto data = copied_in<Index>("d", {5, 5}), x = copied_in<Index>("x", {3, 3});
  auto own = lapis::subview(indices, std::make_pair(0, 2));
  lapis::kernels::spmv_csr(indptr, indices, data, x, own);  // valid as read; leaves [15 15] as the indices
  Index y("y", 2);
  EXPECT_THROW(lapis::kernels::spmv_csr(indptr, indices, data, x, y), std::invalid_argument);
}

}  // namespace
