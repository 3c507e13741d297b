#include "fitness/matrix_functions/schwefel_matrix.hpp"

#include "core/rng.hpp"

namespace chainsaw {

SchwefelMatrixInstance SchwefelMatrixInstance::generate(SchwefelMatrixKind kind,
                                                        const std::vector<real_t>& o,
                                                        std::uint64_t seed) {
  SchwefelMatrixInstance inst;
  inst.kind = kind;
  inst.dim = static_cast<Dim>(o.size());
  const Dim d = inst.dim;
  const auto entries = static_cast<std::size_t>(d * d);
  if (kind == SchwefelMatrixKind::k26) {
    inst.a26.resize(entries);
  } else {
    inst.a213.resize(entries);
    inst.b213.resize(entries);
  }
  inst.target.resize(static_cast<std::size_t>(d));
  std::vector<double> sin_o(o.size()), cos_o(o.size());
  for (std::size_t j = 0; j < o.size(); ++j) {
    sin_o[j] = std::sin(static_cast<double>(o[j]));
    cos_o[j] = std::cos(static_cast<double>(o[j]));
  }
  const std::uint64_t key = derive_key(seed, static_cast<std::uint64_t>(RngPurpose::kSchwefelMatrix));
#pragma omp parallel for schedule(static) if (d > 64)
  for (Dim i = 0; i < d; ++i) {
    CounterRng rng(derive_key(key, static_cast<std::uint64_t>(i)));
    const std::size_t row = static_cast<std::size_t>(i * d);
    double target = 0.0;  // in j order, as the host evaluation sums
    for (Dim j = 0; j < d; ++j) {
      if (kind == SchwefelMatrixKind::k26) {
        const auto a = static_cast<std::int16_t>(static_cast<std::int64_t>(rng.below(1001)) - 500);
        inst.a26[row + j] = a;
        target += static_cast<double>(a) * static_cast<double>(o[j]);
      } else {
        const auto a = static_cast<std::int8_t>(static_cast<std::int64_t>(rng.below(201)) - 100);
        const auto b = static_cast<std::int8_t>(static_cast<std::int64_t>(rng.below(201)) - 100);
        inst.a213[row + j] = a;
        inst.b213[row + j] = b;
        target += static_cast<double>(a) * sin_o[j] + static_cast<double>(b) * cos_o[j];
      }
    }
    inst.target[static_cast<std::size_t>(i)] = target;
  }
  return inst;
}

SchwefelMatrixView SchwefelMatrixInstance::view() const {
  SchwefelMatrixView v;
  v.kind = kind;
  v.dim = dim;
  v.a26 = a26.empty() ? nullptr : a26.data();
  v.a213 = a213.empty() ? nullptr : a213.data();
  v.b213 = b213.empty() ? nullptr : b213.data();
  v.target = target.data();
  return v;
}

double SchwefelMatrixInstance::evaluate(const real_t* x) const {
  const SchwefelMatrixView v = view();
  std::vector<double> sin_x, cos_x;
  if (kind == SchwefelMatrixKind::k213) {
    sin_x.resize(static_cast<std::size_t>(dim));
    cos_x.resize(static_cast<std::size_t>(dim));
    for (Dim j = 0; j < dim; ++j) {
      sin_x[static_cast<std::size_t>(j)] = std::sin(static_cast<double>(x[j]));
      cos_x[static_cast<std::size_t>(j)] = std::cos(static_cast<double>(x[j]));
    }
  }
  double f = 0.0;
  for (Dim i = 0; i < dim; ++i) {
    const double row = kind == SchwefelMatrixKind::k26
                           ? schwefel26_row_dot(v, i, x, 0, 1)
                           : schwefel213_row_sum(v, i, sin_x.data(), cos_x.data(), 0, 1);
    f = schwefel_matrix_combine(kind, f, schwefel_matrix_term(kind, row, v.target[i]));
  }
  return f;
}

#if !defined(CHAINSAW_CUDA)
DeviceBatchFn schwefel_matrix_device_batch(std::shared_ptr<const SchwefelMatrixInstance>) {
  return {};
}
#endif

}  // namespace chainsaw
