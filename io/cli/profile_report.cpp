#include "io/cli/profile_report.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace chainsaw {

namespace {
constexpr const char* kOtherLabel = "other (host, launch gaps, set-up)";

double share(double seconds, double total) { return total > 0.0 ? seconds / total : 0.0; }
double rate(double bytes, double seconds) { return seconds > 0.0 ? bytes / seconds : 0.0; }
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
    const double bytes = r.buckets.bytes(static_cast<Bucket>(b));
    if (bytes > 0.0) {  // the roofline column: the passes' essential bytes (core/profiling.hpp)
      auto& entry = buckets[info.key];
      entry["bytes"] = bytes;
      entry["bytes_per_second"] = rate(bytes, s);
      if (r.buckets.copy_bandwidth() > 0.0)
        entry["share_of_copy_bandwidth"] = rate(bytes, s) / r.buckets.copy_bandwidth();
    }
  }
  buckets["other"] = {{"seconds", r.other_seconds()},
                      {"share", share(r.other_seconds(), r.total_seconds())},
                      {"label", kOtherLabel}};
  j["buckets"] = buckets;
  if (r.buckets.copy_bandwidth() > 0.0)
    j["copy_bandwidth_bytes_per_second"] = r.buckets.copy_bandwidth();
  return j;
}

std::string profile_table(const ProfileReport& r) {
  const double total = r.total_seconds();
  const double copy = r.buckets.copy_bandwidth();
  std::string out = fmt::format(
      "chainsaw: profile ({}), {:.3f} s = set-up {:.3f} s + run {:.3f} s; fused passes are "
      "counted where their genes are made\n",
      r.clock, total, r.setup_seconds, r.run_seconds);
  out += fmt::format("  {:<44} {:>15} {:>8} {:>10} {:>7}\n", "phase", "time", "share", "GB/s",
                     "of copy");
  auto line = [&](const char* label, double seconds, double bytes) {
    out += fmt::format("  {:<44} {:>12.1f} ms {:>6.1f} %", label, 1e3 * seconds,
                       100.0 * share(seconds, total));
    if (bytes > 0.0 && seconds > 0.0) {
      out += fmt::format(" {:>10.1f}", 1e-9 * rate(bytes, seconds));
      if (copy > 0.0) out += fmt::format(" {:>5.1f} %", 100.0 * rate(bytes, seconds) / copy);
    }
    out += "\n";
  };
  for (std::size_t b = 0; b < KernelProfile::kBuckets; ++b)
    line(bucket_info(static_cast<Bucket>(b)).label, r.buckets.seconds(static_cast<Bucket>(b)),
         r.buckets.bytes(static_cast<Bucket>(b)));
  line(kOtherLabel, r.other_seconds(), 0.0);
  line("total", total, 0.0);
  if (copy > 0.0)
    out += fmt::format(
        "  GB/s: the essential bytes of the passes (vectors read or written once) per second; "
        "copy bandwidth {:.1f} GB/s\n",
        1e-9 * copy);
  return out;
}

}  // namespace chainsaw
