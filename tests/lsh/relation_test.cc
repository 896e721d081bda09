// The relation rule (lsh/relation.h): which relation a pair is reported for,
// and the guard against templates, judged from counted overlaps.
#include "lsh/relation.h"

#include <gtest/gtest.h>

#include <optional>

namespace neardup {
namespace {

RelationRule Rule(Relation relation) {
  Options o;
  o.relation = relation;
  return RelationRule::Of(o);
}

Overlap Of(uint64_t shared, uint64_t a, uint64_t b) { return {.shared = shared, .size_a = a, .size_b = b}; }

TEST(RelationRuleTest, ContainmentIsReportedWithTheContainedSide) {
  const RelationRule rule = Rule(Relation::kContains);
  // 90 of A's 100 shingles in B of 400: C = 0.9 at ratio 4, J = 0.18.
  EXPECT_EQ(rule.Judge(Of(90, 100, 400)), PairKind::kAInB);
  EXPECT_EQ(rule.Judge(Of(90, 400, 100)), PairKind::kBInA);
  // 79 of 100: below -t 0.8.
  EXPECT_EQ(rule.Judge(Of(79, 100, 400)), std::nullopt);
  EXPECT_EQ(rule.Judge(Of(80, 100, 400)), PairKind::kAInB);
}

TEST(RelationRuleTest, TheGuardLeavesOutShortNearEqualAndFarPairs) {
  const RelationRule rule = Rule(Relation::kContains);
  EXPECT_EQ(rule.Judge(Of(49, 49, 200)), std::nullopt);       // under --min-contained 50
  EXPECT_EQ(rule.Judge(Of(50, 50, 200)), PairKind::kAInB);    // at it
  EXPECT_EQ(rule.Judge(Of(100, 100, 119)), std::nullopt);     // ratio 1.19 < --min-ratio 1.2
  EXPECT_EQ(rule.Judge(Of(100, 100, 120)), PairKind::kAInB);  // ratio 1.2
  EXPECT_EQ(rule.Judge(Of(100, 100, 801)), std::nullopt);     // ratio above --max-ratio 8
  EXPECT_EQ(rule.Judge(Of(100, 100, 800)), PairKind::kAInB);  // J = 0.125
  RelationRule floor = rule;
  floor.min_jaccard = 0.2;
  EXPECT_EQ(floor.Judge(Of(100, 100, 800)), std::nullopt);  // J 0.125 under the floor
}

TEST(RelationRuleTest, BothReportsNearCopiesFirstAndSimilarReportsNoContainment) {
  // J = 90/110 = 0.818: a near copy.
  EXPECT_EQ(Rule(Relation::kBoth).Judge(Of(90, 100, 100)), PairKind::kSimilar);
  EXPECT_EQ(Rule(Relation::kSimilar).Judge(Of(90, 100, 100)), PairKind::kSimilar);
  // Ratio 1: no containment, and no near copy with contains alone.
  EXPECT_EQ(Rule(Relation::kContains).Judge(Of(90, 100, 100)), std::nullopt);
  EXPECT_EQ(Rule(Relation::kSimilar).Judge(Of(90, 100, 400)), std::nullopt);
  EXPECT_EQ(Rule(Relation::kBoth).Judge(Of(90, 100, 400)), PairKind::kAInB);
}

TEST(RelationRuleTest, AnEstimateIsJudgedByTheIntersectionItImplies) {
  const RelationRule rule = Rule(Relation::kContains);
  // J = 0.2 over 100 and 400: |A ∩ B| = 0.2 * 500 / 1.2 = 83.3, C = 0.833.
  EXPECT_EQ(rule.JudgeEstimate(0.2, 100, 400), PairKind::kAInB);
  // J = 0.18: 76.3, C = 0.763.
  EXPECT_EQ(rule.JudgeEstimate(0.18, 100, 400), std::nullopt);
}

TEST(RelationRuleTest, ContainmentOfTheSmallerFromAnExactJaccardIsExact) {
  // 100 of 100 in 300: J = 1/3 exactly as a ratio, C = 1 not 0.99999.
  EXPECT_EQ(ContainmentOfSmaller(100.0 / 300.0, 100, 300, true), 1.0);
  EXPECT_EQ(ContainmentOfSmaller(100.0 / 300.0, 300, 100, true), 1.0);
  EXPECT_NEAR(ContainmentOfSmaller(0.2, 100, 400, false), 0.8333, 1e-4);
  EXPECT_EQ(ContainmentOfSmaller(0.5, 0, 10, false), 0.0);
}

}  // namespace
}  // namespace neardup
