#include "distributed/task_frame.h"

namespace neardup {

Status CheckTaskIndex(StageTask t) {
  if (t.tasks == 0 || t.task >= t.tasks) return Status::InvalidArgument("--task must be below --tasks");
  return Status::Ok();
}

Result<TaskFrame> TaskFrame::Begin(const WorkFolder& folder, StageKind kind, StageTask t, uint64_t fingerprint) {
  if (Status s = CheckTaskIndex(t); !s.ok()) return s;
  if (Status s = folder.Create(); !s.ok()) return s;
  Result<bool> marked = folder.Done(kind, t, fingerprint);
  if (!marked.ok()) return marked.status();
  TaskFrame frame(folder, kind, t, fingerprint);
  frame.done_ = *marked;
  return frame;
}

Status TaskFrame::SameRun() const { return folder_.SameRun(kind_, task_, fingerprint_); }

void TaskFrame::RemoveTemporaries() const { folder_.RemoveTemporaries(kind_, task_.task); }

Status TaskFrame::Join() const {
  if (Status s = SameRun(); !s.ok()) return s;
  RemoveTemporaries();
  return Status::Ok();
}

std::string TaskFrame::Path(std::string_view suffix) const { return folder_.File(kind_, task_.task, suffix); }

Status TaskFrame::Place(std::string_view suffix, std::string_view bytes) const {
  return WriteAtomically(Path(suffix), bytes);
}

Result<TaskRun> TaskFrame::Finish() const {
  if (Status s = WriteAtomically(Path("done"), WorkFolder::MarkerText(kind_, task_, fingerprint_)); !s.ok()) return s;
  return TaskRun::kRan;
}

}  // namespace neardup
