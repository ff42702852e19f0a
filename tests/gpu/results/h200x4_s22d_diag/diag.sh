set -u
J="python3 tests/gpu/judge_check.py --commit 59f9d10 --task-timeout 60"
R=$OUT/diag; mkdir -p $R
( CUDA_VISIBLE_DEVICES=0 $J --out $R/redteam18.jsonl --sections pairs --pairs tests/data/redteam18/p18.txt --budget-s 100; CUDA_VISIBLE_DEVICES=0 $J --out $R/redteam17h.jsonl --sections pairs --pairs tests/data/redteam17/p17h.txt --budget-s 80 ) > $R/g0.log 2>&1 &
( CUDA_VISIBLE_DEVICES=1 KWB_FRAMES_DUMP=$R/f_mid.jsonl $J --out $R/relubig_mid.jsonl --sections pairs --pairs .device/p/relubig.txt --budget-s 150 ) > $R/g1.log 2>&1 &
( CUDA_VISIBLE_DEVICES=2 KWB_X_MID_BATCH=0 KWB_FRAMES_DUMP=$R/f_one.jsonl $J --out $R/relubig_one.jsonl --sections pairs --pairs .device/p/relubig.txt --budget-s 150 ) > $R/g2.log 2>&1 &
( CUDA_VISIBLE_DEVICES=3 KWB_X_ALTERNATE=1 KWB_FRAMES_DUMP=$R/f_alt.jsonl $J --out $R/relubig_alt.jsonl --sections pairs --pairs .device/p/relubig.txt --budget-s 150 ) > $R/g3.log 2>&1 &
wait
for f in $R/*.log; do echo "== $f"; grep -A14 "^== summary" $f; done
tar -czf $OUT/diag.tar.gz -C $OUT diag && rm -rf $R
