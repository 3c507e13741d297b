#include "io/cli/profile_report.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace chainsaw {

namespace {
constexpr const char* kOtherLabel = "other (host, launch gaps, set-up)";

double share(double seconds, double total) { return total > 0.0 ? seconds / total : 0.0; }
}  // namespace

double ProfileReport::other_seconds() const {
  return std::max(0.0, total_seconds() - buckets.total());
}

nlohmann::ordered_json profile_to_json(const ProfileReport& r) {
  nlohmann::ordered_json j;
  j["clock"] = r.clock;
  j["total_seconds"] = r.total_seconds();
  j["setup_seconds"] = r.setup_seconds;
  j["run_seconds"] = r.run_seconds;
  nlohmann::ordered_json buckets = nlohmann::ordered_json::object();
  for (std::size_t b = 0; b < KernelProfile::kBuckets; ++b) {
    const BucketInfo info = bucket_info(static_cast<Bucket>(b));
    const double s = r.buckets.seconds(static_cast<Bucket>(b));
    buckets[info.key] = {{"seconds", s}, {"share", share(s, r.total_seconds())}, {"label", info.label}};
  }
  buckets["other"] = {{"seconds", r.other_seconds()},
                      {"share", share(r.other_seconds(), r.total_seconds())},
                      {"label", kOtherLabel}};
  j["buckets"] = buckets;
  return j;
}

std::string profile_table(const ProfileReport& r) {
  const double total = r.total_seconds();
  std::string out = fmt::format(
      "chainsaw: profile ({}), {:.3f} s = set-up {:.3f} s + run {:.3f} s; fused passes are "
      "counted where their genes are made\n",
      r.clock, total, r.setup_seconds, r.run_seconds);
  out += fmt::format("  {:<44} {:>15} {:>8}\n", "phase", "time", "share");
  auto line = [&](const char* label, double seconds) {
    out += fmt::format("  {:<44} {:>12.1f} ms {:>6.1f} %\n", label, 1e3 * seconds,
                       100.0 * share(seconds, total));
  };
  for (std::size_t b = 0; b < KernelProfile::kBuckets; ++b)
    line(bucket_info(static_cast<Bucket>(b)).label, r.buckets.seconds(static_cast<Bucket>(b)));
  line(kOtherLabel, r.other_seconds());
  line("total", total);
  return out;
}

}  // namespace chainsaw
