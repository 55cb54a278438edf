import numpy as np
import sys
z=np.load(sys.argv[1]); NQ=int(sys.argv[2])
tile,warp,q,batch,grp=[z[k].astype(np.int64) for k in ("tile","warp","q","batch","grp")]
nb=batch.max()+1
# counts per (tile,warp,batch,grp,q)
idx=(((tile*8+warp)*nb+batch)*32+grp)*NQ+q
c=np.bincount(idx,minlength=1024*8*nb*32*NQ).reshape(1024*8,nb,32,NQ)
cur=c.max(axis=3).sum()
new=c.sum(axis=2).max(axis=2).sum()
tot=c.sum()
print("visits rg",tot,"current passes",cur,"new passes",new, "ideal", tot/NQ)
# advances: nonempty groups per (tile,warp,batch,q)
adv=(c>0).sum()
print("advance events (rg)",adv, "per pass", adv/new)
# groups-of-64 variants
c64=c.reshape(1024*8,nb,16,2,NQ).sum(axis=3)
print("current with 64-circle groups", c64.max(axis=3).sum(), "adv64",(c64>0).sum())
