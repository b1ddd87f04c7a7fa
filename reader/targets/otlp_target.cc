#include "reader/targets/otlp_target.h"

#include <memory>
#include <string>

#include "reader/event.h"
#include "reader/targets/otlp_json.h"
#include "reader/targets/otlp_spans.h"

namespace tracewire::targets {
namespace {

// The formatter: the span model (otlp_spans.h) writing through the JSON writer
// (otlp_json.h). Skip builds the spans (a later line of their process may be written)
// and renders no line.
class OtlpFormatter : public Formatter {
 public:
  void Write(const reader::Event& e, std::string* out) override { spans_.Add(e, out); }
  void Skip(const reader::Event& e) override { spans_.Add(e, /*out=*/nullptr); }
  bool skips_cheaply() const override { return true; }
  void Finish(std::string* out) override { spans_.Finish(out); }

 private:
  otlp::LineWriter writer_;
  otlp::SpanBuilder spans_{
      [this](const otlp::Process& p, bool all, std::string* out) {
        writer_.WriteLine(p, all, out);
      },
      [this](const otlp::Process& p, std::string* out) { writer_.WriteMetricsLine(p, out); }};
};

}  // namespace

std::unique_ptr<Formatter> MakeOtlpFormatter(const FormatterOptions& options) {
  return std::make_unique<OtlpFormatter>();
}

}  // namespace tracewire::targets
