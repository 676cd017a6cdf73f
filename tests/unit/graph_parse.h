// A planned filter graph read by this FFmpeg's own parser (avfilter_graph_parse2), not compared
// as text: every filter must exist in this libavfilter, every option must exist and its value
// parse (each filter is created and initialised with its arguments, hardware filters too; none
// is configured, so no device is needed), and the graph's open ends must be the plan's input
// and sinks. Skips nothing: a caller skips first where a filter is not built here.
#pragma once

#include <memory>
#include <set>
#include <string>

extern "C" {
#include <libavfilter/avfilter.h>
#include <libavutil/error.h>
}

#include "pipeline/plan/plan.h"

namespace tc::testing {

struct GraphDeleter {
  void operator()(AVFilterGraph* graph) const { avfilter_graph_free(&graph); }
};
struct InOutDeleter {
  void operator()(AVFilterInOut* list) const { avfilter_inout_free(&list); }
};

// What libavfilter made of a graph's text: "" or why it refused it, and its unconnected labels.
struct ParsedGraph {
  std::string refusal;
  std::set<std::string> open_inputs;   // "in"
  std::set<std::string> open_outputs;  // the sinks' labels
  unsigned filters = 0;
  std::multiset<std::string> filter_names;  // each filter's libavfilter name: "scale_vaapi"
};

inline std::set<std::string> labels_of(const AVFilterInOut* list) {
  std::set<std::string> labels;
  for (; list; list = list->next) labels.insert(list->name ? list->name : "");
  return labels;
}

inline ParsedGraph parse_graph(const std::string& text) {
  ParsedGraph parsed;
  std::unique_ptr<AVFilterGraph, GraphDeleter> graph(avfilter_graph_alloc());
  AVFilterInOut* inputs = nullptr;
  AVFilterInOut* outputs = nullptr;
  int err = avfilter_graph_parse2(graph.get(), text.c_str(), &inputs, &outputs);
  std::unique_ptr<AVFilterInOut, InOutDeleter> own_inputs(inputs), own_outputs(outputs);
  if (err < 0) {
    char why[AV_ERROR_MAX_STRING_SIZE] = {};
    av_strerror(err, why, sizeof why);
    parsed.refusal = std::string("avfilter_graph_parse2: ") + why;
    return parsed;
  }
  parsed.open_inputs = labels_of(inputs);
  parsed.open_outputs = labels_of(outputs);
  parsed.filters = graph->nb_filters;
  for (unsigned i = 0; i < graph->nb_filters; ++i)
    parsed.filter_names.insert(graph->filters[i]->filter->name);
  return parsed;
}

// The labels the plan's sinks carry.
inline std::set<std::string> sink_labels(const FilterGraphPlan& graph) {
  std::set<std::string> labels;
  for (const GraphSink& sink : graph.sinks) labels.insert(sink.label);
  return labels;
}

}  // namespace tc::testing
