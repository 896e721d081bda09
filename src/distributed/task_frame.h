// TaskFrame: what every stage task that leaves a completion marker (sign,
// bucket, verify) does around its work, in one place, so that each task
// reads as decide (Run::Decide), begin, work, finish.
//
// The frame owns what is the same in those tasks (work_folder.h says why):
//  - the task index, checked against the task count before anything is
//    touched (CheckTaskIndex(), which stage filter uses too);
//  - "already done": Begin() creates the work folder and reads the task's
//    marker, I.done; a marker of this run (the same task count and
//    fingerprint) makes done() true, and the task then does no work and
//    rewrites nothing (a sign task still checks its files first); a marker
//    of another run is refused;
//  - joining the stage (Join()): SameRun() refuses a folder whose other
//    markers are of another run, and RemoveTemporaries() removes what a
//    killed run of this task left, before the outputs are written;
//  - the outputs, each written whole under a temporary name and renamed
//    into place (Place(), or an AtomicFileWriter at Path());
//  - the marker, written last (Finish()): a task that fails before leaves
//    no marker, and a re-run does the work again.
// What differs per task (the checks of the earlier stages, the order of
// its own checks, the outputs) stays in the task.
//
// Stage report and stage filter leave no marker: the report writes its
// dropped lists at every run (stage_filter.h), a filter task places its
// files at every run.
//
// Thread safety: a frame is one task's, used by one thread; distinct tasks
// may run at once in distinct processes on one folder.
//
//   Result<TaskFrame> frame = TaskFrame::Begin(folder, StageKind::kBucket, t, fingerprint);
//   if (!frame.ok()) return frame.status();
//   if (frame->done()) return TaskRun::kAlreadyDone;
//   if (Status s = frame->Join(); !s.ok()) return s;
//   ... the work ...
//   if (Status s = frame->Place("pairs", bytes); !s.ok()) return s;
//   return frame->Finish();
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "distributed/work_folder.h"
#include "neardup/stages.h"
#include "neardup/status.h"

namespace neardup {

// InvalidArgument "--task must be below --tasks" unless t.task < t.tasks
// (so t.tasks > 0).
Status CheckTaskIndex(StageTask t);

class TaskFrame {
 public:
  // Begins task `t` of stage `kind` over `folder`, of a run whose markers
  // hold `fingerprint`: checks the task index (CheckTaskIndex()), creates
  // the work folder (WorkFolder::Create()) and reads the task's marker
  // (WorkFolder::Done()). Errors: the task index, a folder that cannot be
  // created, a damaged marker (Corrupt), a marker of another run
  // (InvalidArgument "...: use an empty work folder").
  static Result<TaskFrame> Begin(const WorkFolder& folder, StageKind kind, StageTask t, uint64_t fingerprint);

  // Whether the task's marker is there, of this run: the task is done.
  bool done() const { return done_; }
  StageTask task() const { return task_; }

  // Ok when every marker of the stage present is of this run (the task
  // count and fingerprint: WorkFolder::SameRun()); else InvalidArgument
  // naming the first that is not.
  Status SameRun() const;
  // Removes the temporaries a killed run of this task left in its stage's
  // folder (not those of the other tasks).
  void RemoveTemporaries() const;
  // SameRun(), then RemoveTemporaries(): how a task that is not done joins
  // its stage before its work.
  Status Join() const;

  // The path of the task's output `suffix`: WORK/<stage>/I.<suffix>.
  std::string Path(std::string_view suffix) const;
  // Writes `bytes` as output `suffix`, whole (WriteAtomically()). IoError
  // on failure; nothing is left under its name then.
  Status Place(std::string_view suffix, std::string_view bytes) const;
  // Writes the task's marker: the task is done. REQUIRES: every output is
  // placed. TaskRun::kRan, or IoError (no marker then).
  Result<TaskRun> Finish() const;

 private:
  TaskFrame(const WorkFolder& folder, StageKind kind, StageTask t, uint64_t fingerprint)
      : folder_(folder), kind_(kind), task_(t), fingerprint_(fingerprint) {}

  WorkFolder folder_;
  StageKind kind_;
  StageTask task_;
  uint64_t fingerprint_;
  bool done_ = false;
};

}  // namespace neardup
